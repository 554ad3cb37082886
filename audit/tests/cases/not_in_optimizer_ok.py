# expect: none
import torch
import tiny


def build(everything=True):
    torch.manual_seed(0)
    model = tiny.MLP()
    params = model.parameters() if everything else model.fc2.parameters()
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(params, lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
