# model.py is outside the package root (proj/ has the pyproject.toml): not used, silent.
import torch
from model import Net

model = Net()
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
