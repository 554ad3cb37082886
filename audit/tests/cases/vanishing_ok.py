# expect: none
# fc2's weight initialised to zero: nothing flows back to fc1.
import torch, torch.nn as nn
import tiny


def build(zero=False):
    torch.manual_seed(0)
    model = tiny.MLP()
    if zero:
        nn.init.zeros_(model.fc2.weight)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
