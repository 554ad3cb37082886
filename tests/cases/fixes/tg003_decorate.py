# TG003: an evaluation function gets @torch.no_grad() right above `def`, below its decorators.
import functools

import torch


class Evaluator:
    @functools.lru_cache(maxsize=None)
    def evaluate(self, model, loader):
        correct = 0
        for x, y in loader:
            correct += (model(x).argmax(-1) == y).sum().item()
        return correct


Evaluator().evaluate(torch.nn.Linear(2, 2), [])
