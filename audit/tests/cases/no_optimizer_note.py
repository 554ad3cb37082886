# expect: TG408
# No optimizer: a hand-written SGD update; audited after the first backward().
import torch
import tiny


def build():
    torch.manual_seed(0)
    model = tiny.MLP()
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(), optimizer=None)


if __name__ == "__main__":
    tiny.train(**build())
