# a.py and b.py import each other; helper() (b.py) returns a.Net, a model: TG003.
import torch
from b import helper

model = helper()
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
