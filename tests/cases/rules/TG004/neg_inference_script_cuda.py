# A CUDA inference script: the loader never feeds a loop that reaches backward() (not a finding).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).cuda().eval()
model.load_state_dict(torch.load("weights.pt"))
loader = DataLoader(torch.load("unlabeled.pt"), batch_size=1024)

predictions = []
with torch.no_grad():
    for x in loader:
        predictions.append(model(x.cuda()).argmax(-1).cpu())
torch.save(torch.cat(predictions), "predictions.pt")
