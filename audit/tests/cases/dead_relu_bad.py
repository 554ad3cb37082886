# expect: TG403 TG405
# A bias of -10 in front of the ReLU: every unit is dead, fc1 gets zero gradient.
import torch, torch.nn as nn
import tiny


def build(bias=-10.0):
    torch.manual_seed(0)
    model = tiny.MLP()
    nn.init.constant_(model.fc1.bias, bias)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
