# expect: TG402
# A NaN in the batch itself.
import torch
import tiny


def build(clean=False):
    torch.manual_seed(0)
    model = tiny.MLP()
    x, y = tiny.batch()
    if not clean:
        x[3, 2] = float("nan")
    return dict(model=model, closure=tiny.classify(model), inputs=(x, y),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
