# Feature dropout as data augmentation in the training loop: not model code,
# and during training the default mode is the right one.
import torch
import torch.nn.functional as F

model = torch.nn.Linear(64, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for feats, y in loader:
    feats = F.dropout(feats, 0.1)
    loss = F.cross_entropy(model(feats), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
