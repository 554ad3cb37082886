# AMP loop with GradScaler: scaler.step(optimizer) after zero_grad(set_to_none=True) (not a finding).
import torch
import torch.nn as nn

model = nn.Linear(512, 512).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.cuda.amp.GradScaler()

for step in range(1000):
    x = torch.randn(64, 512, device="cuda")
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = (model(x) - x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
