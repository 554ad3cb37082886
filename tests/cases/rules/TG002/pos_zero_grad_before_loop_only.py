# zero_grad() runs once before the loop, never inside an iteration: gradients add up from step 2 on (TG002).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
xs = torch.linspace(-1, 1, 200).unsqueeze(1).repeat(1, 3)
ys = xs.sum(dim=1, keepdim=True).sin()

optimizer.zero_grad()
for it in range(1000):
    loss = nn.functional.mse_loss(model(xs), ys)
    loss.backward()
    optimizer.step()
