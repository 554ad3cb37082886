"""Shared pieces of the audit test cases: tiny models, a hand-made LoRA layer
(named like PEFT's: lora_A, lora_B, base_layer) and the training loop every
case script runs as __main__. Each case defines build() -> dict(model,
closure, optimizer, inputs); tests/test_cases.py runs it through pfc_audit.run
(the path of `pfc audit`) and through audit()."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=8, hidden=32, d_out=4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class LoRALinear(nn.Module):
    def __init__(self, base, r=2):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(x))


def add_lora(model, names, r=2):
    for name in names:
        setattr(model, name, LoRALinear(getattr(model, name), r))
    return model


def freeze_base(model):
    for name, p in model.named_parameters():
        p.requires_grad_("lora_" in name)


def batch(n=16, d_in=8, d_out=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d_in, generator=g), torch.randint(0, d_out, (n,), generator=g)


def classify(model):
    return lambda x, y: F.cross_entropy(model(x), y)


def train(model, closure, optimizer, inputs, steps=3):
    for _ in range(steps):
        loss = closure(*inputs)
        loss.backward()
        if optimizer is not None:
            optimizer.step()
            optimizer.zero_grad()
        else:
            with torch.no_grad():
                for p in model.parameters():
                    if p.grad is not None:
                        p -= 0.1 * p.grad
                        p.grad = None


def process_group():
    """A one-process gloo group (CPU) for the DDP cases."""
    import os
    import tempfile
    import torch.distributed as dist
    if not dist.is_initialized():
        fd, path = tempfile.mkstemp(prefix="pfc-audit-pg-")
        os.close(fd)
        os.unlink(path)
        dist.init_process_group("gloo", init_method="file://" + path, rank=0, world_size=1)
