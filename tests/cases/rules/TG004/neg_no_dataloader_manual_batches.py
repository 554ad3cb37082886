# CUDA training over manual index batches: no DataLoader at all (not a finding).
import torch
import torch.nn as nn

X = torch.load("x.pt").cuda()
Y = torch.load("y.pt").cuda()
model = nn.Linear(X.size(1), 1).cuda()
opt = torch.optim.Adam(model.parameters())

for epoch in range(10):
    perm = torch.randperm(X.size(0), device="cuda")
    for i in range(0, X.size(0), 256):
        idx = perm[i:i + 256]
        opt.zero_grad()
        nn.functional.mse_loss(model(X[idx]), Y[idx]).backward()
        opt.step()
