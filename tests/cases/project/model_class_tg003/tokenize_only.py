# Tokenizer (tokenizer.py) is a plain class, not a model: nothing to report.
# (no model.eval(): on a class of a module pfc does not parse, that alone
# would make the value a module, by use)
import torch
from tokenizer import Tokenizer as GPT

model = GPT()
model.load_state_dict(torch.load("model.pt"))


def evaluate(batches):
    preds = []
    for x in batches:
        preds.append(model(x).argmax(dim=-1))
    return preds


torch.save(evaluate(torch.load("x_test.pt")), "preds.pt")
