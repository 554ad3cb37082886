# The transfer-learning tutorial's shape: a dict comprehension of loaders,
# read by a helper through the global and indexed by the phase.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
image_datasets = {x: datasets.ImageFolder(x, transforms.ToTensor()) for x in ["train", "val"]}
dataloaders = {x: DataLoader(image_datasets[x], batch_size=4, shuffle=True) for x in ["train", "val"]}


def train_model(model, criterion, optimizer, num_epochs=25):
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


net = models.resnet18().to(device)
train_model(net, nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.001))
