# Fine-tuning torchvision's ResNet: the classifier is replaced after the
# optimizer was built, so the optimizer still holds the old 1000-way head.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
model.fc = nn.Linear(2048, 10)
model = model.cuda()
for images, labels in loader:
    loss = F.cross_entropy(model(images.cuda()), labels.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
