# DataLoader left at default num_workers in a script that moves batches with .cuda() and trains (TG004 at DataLoader().
import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader

train_set = torchvision.datasets.CIFAR10("data", train=True, download=True, transform=T.ToTensor())
train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 10)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(10):
    for images, labels in train_loader:
        images, labels = images.cuda(), labels.cuda()
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
