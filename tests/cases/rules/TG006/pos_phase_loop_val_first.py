# The phases run "val" first and only "val" switches the mode: the "train"
# phase that follows backpropagates with dropout and BatchNorm in eval mode.
import torch
import torch.nn as nn
from torchvision import models

device = torch.device("cuda")
model = models.resnet18().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

for epoch in range(25):
    for phase in ["val", "train"]:
        if phase == "val":
            model.eval()
        for inputs, labels in loaders[phase]:
            loss = criterion(model(inputs.to(device)), labels.to(device))
            if phase == "train":
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
