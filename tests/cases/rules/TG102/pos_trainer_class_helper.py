# A trainer class injects the LoRA layers through a helper and optimizes all.
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


def add_lora(net, rank):
    net.fc1 = LoRALinear(net.fc1, rank)
    net.fc2 = LoRALinear(net.fc2, rank)


class Trainer:
    def __init__(self, rank):
        self.model = MLP()
        add_lora(self.model, rank)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=5e-4)

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
