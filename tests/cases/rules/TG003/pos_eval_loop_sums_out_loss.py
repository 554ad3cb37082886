# HF eval loop without no_grad sums out.loss: TG003 at the model call, raised to error because TG001 also holds.
import math

import torch
from transformers import AutoModelForCausalLM


def evaluate(model, loader):
    model.eval()
    total = 0.0
    for batch in loader:
        out = model(**batch)
        total += out.loss
    return math.exp(total.item() / len(loader))


lm = AutoModelForCausalLM.from_pretrained("gpt2")
print(evaluate(lm, torch.load("val_loader.pt")))
