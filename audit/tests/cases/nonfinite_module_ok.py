# expect: none
# torch.log of a linear layer's output: NaN born in module `head`.
import torch, torch.nn as nn, torch.nn.functional as F
import tiny


class LogHead(nn.Module):
    def __init__(self, safe):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.safe = safe

    def forward(self, x):
        z = self.proj(x)
        return F.logsigmoid(z) if self.safe else torch.log(z)


class Net(tiny.MLP):
    def __init__(self, safe):
        super().__init__()
        self.head = LogHead(safe)

    def forward(self, x):
        return self.head(super().forward(x))


def build(safe=True):
    torch.manual_seed(0)
    model = Net(safe)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
