# The head is replaced first; the optimizer sees the new layer.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
model.fc = nn.Linear(2048, 10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for images, labels in loader:
    loss = F.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
