# AMP loop: scaler.step(optimizer) runs optimizer.step() but gradients are never reset (TG002 at the step call).
import torch
import torch.nn as nn

model = nn.Linear(512, 512).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.cuda.amp.GradScaler()

for step in range(1000):
    x = torch.randn(64, 512, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = (model(x) - x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
