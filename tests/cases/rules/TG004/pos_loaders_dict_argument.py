# The finetuning tutorial's shape: the dict of loaders is an argument of the
# training function, filled by its one call in the file.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import models


def train_model(model, dataloaders, criterion, optimizer, num_epochs=25):
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            for inputs, labels in dataloaders[phase]:
                inputs = inputs.to(device)
                labels = labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    loss = criterion(model(inputs), labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
    return model


device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
dataloaders_dict = {x: DataLoader(image_datasets[x], batch_size=8, shuffle=True) for x in ["train", "val"]}
net = models.resnet18().to(device)
train_model(net, dataloaders_dict, nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.001))
