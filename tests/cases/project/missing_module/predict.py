# GPT (model.py) is a model: TG003; nowhere.py does not exist.
import torch
from nowhere import Net
from model import GPT

model = GPT()
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
