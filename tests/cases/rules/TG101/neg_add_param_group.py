# The replaced head's parameters are added to the existing optimizer.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

model = torchvision.models.resnet18(weights="DEFAULT")
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
head = nn.Linear(512, 10)
model.fc = head
optimizer.add_param_group({"params": head.parameters(), "lr": 0.1})
for images, labels in loader:
    loss = F.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
