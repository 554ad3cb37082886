# One loop over phases: eval() in the "val" arm, backward() only under
# `phase == "train"`, and the next "train" phase calls train() first.
import torch
import torch.nn as nn
from torchvision import models

device = torch.device("cuda")
model = models.resnet18().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)

for epoch in range(25):
    for phase in ["train", "val"]:
        if phase == "train":
            model.train()
        else:
            model.eval()
        for inputs, labels in loaders[phase]:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                loss = criterion(model(inputs), labels)
                if "train" == phase:
                    loss.backward()
                    optimizer.step()
