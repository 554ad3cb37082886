# `device = "cuda" if torch.cuda.is_available() else "cpu"` counts as CUDA; the loader has default workers (TG004).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

device = "cuda" if torch.cuda.is_available() else "cpu"
train_ds = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(3):
    for x, y in train_dl:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
