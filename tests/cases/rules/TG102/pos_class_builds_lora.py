# The model class builds its attention projections as LoRA layers itself,
# and nothing freezes the pretrained weights it loads.
import torch
import torch.nn as nn


class LoRAProj(nn.Module):
    def __init__(self, dim, rank):
        super().__init__()
        self.weight = nn.Linear(dim, dim, bias=False)
        self.lora_down = nn.Linear(dim, rank, bias=False)
        self.lora_up = nn.Linear(rank, dim, bias=False)
        nn.init.zeros_(self.lora_up.weight)

    def forward(self, x):
        return self.weight(x) + self.lora_up(self.lora_down(x))


class Attention(nn.Module):
    def __init__(self, dim=768, rank=4):
        super().__init__()
        self.q = LoRAProj(dim, rank)
        self.v = LoRAProj(dim, rank)

    def forward(self, x):
        att = torch.softmax(self.q(x) @ x.transpose(-1, -2), -1)
        return att @ self.v(x)


model = Attention()
model.load_state_dict(torch.load("pretrained.pt"), strict=False)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x in loader:
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
