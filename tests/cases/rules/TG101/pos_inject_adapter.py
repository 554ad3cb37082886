# inject_adapter_in_model adds LoRA layers to a plain nn.Module in place,
# after its optimizer exists.
import torch
import torch.nn as nn
from peft import LoraConfig, inject_adapter_in_model


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(128, 128)
        self.out = nn.Linear(128, 2)

    def forward(self, x):
        return self.out(torch.relu(self.linear(x)))


net = MLP()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
net = inject_adapter_in_model(LoraConfig(r=4, target_modules=["linear"]), net)
for x, y in loader:
    loss = nn.functional.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
