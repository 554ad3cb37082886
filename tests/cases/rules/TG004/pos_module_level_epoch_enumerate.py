# A beginner script: everything at module level, an epoch loop around
# `enumerate(loader)`. The builtin read inside the nested loop must still be
# `enumerate`, so the inner loop iterates the loader (finding at the DataLoader).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = nn.Linear(28 * 28, 10).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)

for epoch in range(5):
    for i, (images, labels) in enumerate(train_loader):
        images, labels = images.to(device), labels.to(device)
        loss = criterion(model(images.view(-1, 28 * 28)), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
