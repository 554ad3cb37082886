# expect: none
# An infinite learning rate: the weights are non-finite after the step.
import torch
import tiny


def build(lr=0.1):
    torch.manual_seed(0)
    model = tiny.MLP()
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=lr))


if __name__ == "__main__":
    tiny.train(**build())
