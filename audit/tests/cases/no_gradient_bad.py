# expect: TG401
# An auxiliary head runs but its output never reaches the loss: no gradient.
import torch, torch.nn as nn
import tiny


class Net(tiny.MLP):
    def __init__(self, aux_in_loss=False):
        super().__init__()
        self.aux = nn.Linear(32, 4)
        self.aux_in_loss = aux_in_loss

    def forward(self, x):
        h = self.act(self.fc1(x))
        self.aux_logits = self.aux(h)
        return self.fc2(h) + self.aux_logits if self.aux_in_loss else self.fc2(h)


def build(aux_in_loss=False):
    torch.manual_seed(0)
    model = Net(aux_in_loss)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
