# torchvision ResNet (class not in the file, has BatchNorm): eval() at epoch end, no train() before the next backward (TG006).
import torch
import torch.nn.functional as F
import torchvision

model = torchvision.models.resnet18(num_classes=10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
train_batches = torch.load("train_batches.pt")

model.train()
for epoch in range(90):
    for images, labels in train_batches:
        opt.zero_grad()
        F.cross_entropy(model(images.cuda()), labels.cuda()).backward()
        opt.step()
    model.eval()
    torch.save(model.state_dict(), "resnet18.pt")
