# expect: none
# The loss is rebuilt from .item(): backward() reaches nothing.
import torch
import tiny


def build(detached=False):
    torch.manual_seed(0)
    model = tiny.MLP()
    loss_of = tiny.classify(model)

    def closure(x, y):
        loss = loss_of(x, y)
        return torch.tensor(loss.item(), requires_grad=True) if detached else loss
    return dict(model=model, closure=closure, inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
