# GPT comes from model.py, an nn.Module: predictions after eval() without no_grad (TG003).
import torch
from model import GPT

model = GPT(64)
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
