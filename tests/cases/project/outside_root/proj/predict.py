# layers.py is inside the root (proj/): TG003.
import torch
from layers import GPT

model = GPT()
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
