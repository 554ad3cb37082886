# model.py is outside the package root (proj/ has the pyproject.toml): not used, silent.
# (no model.eval() here: that alone makes the value a module, by use)
import torch
from model import Net

model = Net()
model.load_state_dict(torch.load("model.pt"))


def evaluate(batches):
    preds = []
    for x in batches:
        preds.append(model(x).argmax(dim=-1))
    return preds


torch.save(evaluate(torch.load("x_test.pt")), "preds.pt")
