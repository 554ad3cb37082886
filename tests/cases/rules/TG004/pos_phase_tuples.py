# The phases as a literal list of (name, loader) pairs: the training pair's
# loader, left at num_workers=0, is the one that reaches backward().
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = nn.Sequential(nn.Linear(64, 64), nn.Dropout(0.2), nn.Linear(64, 10)).to(device)
optimizer = torch.optim.AdamW(model.parameters())
train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
val_loader = DataLoader(val_set, batch_size=512, num_workers=4)

for epoch in range(20):
    for phase, loader in [("train", train_loader), ("val", val_loader)]:
        if phase == "train":
            model.train()
        else:
            model.eval()
        for x, y in loader:
            with torch.set_grad_enabled(phase == "train"):
                loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            if phase == "train":
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
