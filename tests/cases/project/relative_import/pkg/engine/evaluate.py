# `from ..models.gpt import GPT` from pkg/engine: TG003.
import torch
from ..models.gpt import GPT

model = GPT()
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
