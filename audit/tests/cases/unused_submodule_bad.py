# expect: TG306
import torch, torch.nn as nn
import tiny


class Net(tiny.MLP):
    def __init__(self, use_extra=False):
        super().__init__()
        self.extra = nn.Linear(4, 4)
        self.use_extra = use_extra

    def forward(self, x):
        out = super().forward(x)
        return self.extra(out) if self.use_extra else out


def build(use_extra=False):
    torch.manual_seed(0)
    model = Net(use_extra)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.Adam(model.parameters()))


if __name__ == "__main__":
    tiny.train(**build())
