# In-file CNN with BatchNorm2d: validation switches to eval() inside the epoch loop and training continues in eval mode (TG006).
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        return self.head(x.mean(dim=(2, 3)))


net = SmallCNN()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for epoch in range(30):
    for images, labels in torch.load("cifar_batches.pt"):
        opt.zero_grad()
        F.cross_entropy(net(images), labels).backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        print(epoch, (net(images).argmax(1) == labels).float().mean().item())
