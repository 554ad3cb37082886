# The validation pass after model.eval() runs with autograd recording. The
# backward() of the next epoch comes after model.train(), outside the
# evaluation region, so it does not excuse it (finding at the model call).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.1), nn.Linear(32, 1)).cuda()
opt = torch.optim.AdamW(model.parameters())
val_x = torch.randn(256, 16, device="cuda")
val_y = torch.randn(256, 1, device="cuda")


def fit(loader, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        val_loss = nn.functional.mse_loss(model(val_x), val_y)
        print(epoch, val_loss.item())
