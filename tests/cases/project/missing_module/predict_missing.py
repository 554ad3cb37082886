# nowhere.py does not exist: Net stays unknown, no finding and no error.
import torch
from nowhere import Net

model = Net()
model.load_state_dict(torch.load("model.pt"))
model.eval()

x_test = torch.load("x_test.pt")
logits = model(x_test)
torch.save(logits.argmax(dim=-1), "preds.pt")
