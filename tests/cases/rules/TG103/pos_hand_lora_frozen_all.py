# Hand-written LoRA swapped in, then the whole model frozen: the LoRA
# matrices are frozen too.
import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    def __init__(self, base, r=4):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))

    def forward(self, x):
        return self.base(x) + x @ self.lora_A.T @ self.lora_B.T


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(128, 128)

    def forward(self, x):
        return self.proj(x)


model = Net()
model.proj = LoRALinear(model.proj)
model.requires_grad_(False)
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
for x, y in loader:
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
