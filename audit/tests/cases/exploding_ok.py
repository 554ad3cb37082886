# expect: none
# A loss scaled by 1e6: the first update is huge.
import torch, torch.nn.functional as F
import tiny


def build(scale=1.0):
    torch.manual_seed(0)
    model = tiny.MLP()
    closure = lambda x, y: F.cross_entropy(model(x), y) * scale
    return dict(model=model, closure=closure, inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
