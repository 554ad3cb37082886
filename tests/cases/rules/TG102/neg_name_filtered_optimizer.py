# The optimizer selects the LoRA parameters by name.
import math
import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    def __init__(self, base, rank=8, alpha=16):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.T @ self.lora_B.T) * self.scale


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(512, 2048)
        self.fc2 = nn.Linear(2048, 512)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = MLP()
model.fc1 = LoRALinear(model.fc1)
model.fc2 = LoRALinear(model.fc2)
lora_params = [p for n, p in model.named_parameters() if "lora_" in n]
opt = torch.optim.AdamW(lora_params, lr=1e-3)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
