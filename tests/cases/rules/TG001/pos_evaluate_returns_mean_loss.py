# evaluate() without no_grad sums the attached out.loss and returns the mean: every batch's activations live until return (TG001 error).
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM


def evaluate(model, loader):
    model.eval()
    total = 0.0
    for batch in loader:
        out = model(**batch)
        total += out.loss
    return total / len(loader)


lm = AutoModelForCausalLM.from_pretrained("gpt2")
val_loader = DataLoader(torch.load("val_tokens.pt"), batch_size=8)
print("val loss", evaluate(lm, val_loader).item())
