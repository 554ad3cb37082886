# Hidden is not in models.__all__, so the star import does not bind it: unknown, silent.
# (no model.eval() here: that alone makes the value a module, by use)
import torch
from .models import *

model = Hidden()
model.load_state_dict(torch.load("model.pt"))


def evaluate(batches):
    preds = []
    for x in batches:
        preds.append(model(x).argmax(dim=-1))
    return preds


torch.save(evaluate(torch.load("x_test.pt")), "preds.pt")
