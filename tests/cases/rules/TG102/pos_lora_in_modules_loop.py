# LoRA wrappers are set on every linear layer found by named_modules().
import torch
import torch.nn as nn


class LoraLinear(nn.Module):
    def __init__(self, linear, r):
        super().__init__()
        self.linear = linear
        self.lora_a = nn.Linear(linear.in_features, r, bias=False)
        self.lora_b = nn.Linear(r, linear.out_features, bias=False)

    def forward(self, x):
        return self.linear(x) + self.lora_b(self.lora_a(x))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64))

    def forward(self, x):
        return self.layers(x)


def main():
    model = Encoder()
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, nn.Linear):
                setattr(module, child_name, LoraLinear(child, 8))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


main()
