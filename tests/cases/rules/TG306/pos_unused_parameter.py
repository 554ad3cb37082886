# A learnable temperature registered as nn.Parameter and never read: the
# logits are never scaled and the optimizer carries a dead parameter.
import torch
import torch.nn as nn


class ContrastiveHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.logit_scale = nn.Parameter(torch.tensor(2.659))

    def forward(self, a, b):
        a = nn.functional.normalize(self.proj(a), dim=-1)
        b = nn.functional.normalize(self.proj(b), dim=-1)
        return a @ b.t()


def main():
    head = ContrastiveHead(256)
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    for a, b in pairs():
        logits = head(a, b)
        loss = nn.functional.cross_entropy(logits, torch.arange(len(a)))
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
