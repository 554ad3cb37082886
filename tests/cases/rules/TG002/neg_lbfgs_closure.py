# L-BFGS: backward() runs inside a closure that zeroes itself, passed to optimizer.step(closure) (not a finding).
import torch
import torch.nn as nn

model = nn.Linear(5, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=20)
x, y = torch.randn(200, 5), torch.randn(200, 1)

for it in range(50):
    def closure():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    optimizer.step(closure)
