# The model comes from a factory pfc cannot see into (an import); it is a
# module because it is .eval()-ed and its .parameters() feed an optimizer.
# evaluate() then runs it over the validation set with autograd recording.
import torch
from mylib.models import build_model

model = build_model("resnet18").cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def evaluate(loader):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x.cuda())
        correct += (out.argmax(1) == y.cuda()).sum().item()
    return correct
