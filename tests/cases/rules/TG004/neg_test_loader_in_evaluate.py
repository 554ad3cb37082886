# CUDA script: the training loader has workers; the default-workers test loader is only used by evaluate() (not a finding).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


@torch.no_grad()
def evaluate(model, loader):
    return sum((model(x.cuda()).argmax(1) == y.cuda()).sum().item() for x, y in loader)


model = nn.Linear(64, 10).cuda()
opt = torch.optim.Adam(model.parameters())
train_loader = DataLoader(torch.load("train.pt"), batch_size=128, shuffle=True, num_workers=6)
test_loader = DataLoader(torch.load("test.pt"), batch_size=512)
for epoch in range(3):
    for x, y in train_loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()
    print(evaluate(model, test_loader))
