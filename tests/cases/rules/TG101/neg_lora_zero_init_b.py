# Hand-written LoRA with B zero-initialised: A's first gradient is zero, which
# is expected. The optimizer is built after the layers are swapped in.
import math
import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    def __init__(self, base, r=8):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad = False
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        return self.base(x) + x @ self.lora_A.T @ self.lora_B.T


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(256, 256)

    def forward(self, x):
        return self.proj(x)


model = Net()
model.proj = LoRALinear(model.proj)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
for x, y in loader:
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
