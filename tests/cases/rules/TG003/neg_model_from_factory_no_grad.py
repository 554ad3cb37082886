# The same factory model evaluated under torch.no_grad(): not a finding.
import torch
from mylib.models import build_model

model = build_model("resnet18").cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.no_grad()
def evaluate(loader):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x.cuda())
        correct += (out.argmax(1) == y.cuda()).sum().item()
    return correct
