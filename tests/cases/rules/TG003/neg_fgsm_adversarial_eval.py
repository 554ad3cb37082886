# Adversarial evaluation (FGSM) needs input gradients: backward() is reachable in the eval function (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


def evaluate_fgsm(model, loader, eps=0.03):
    model.eval()
    correct = 0
    for x, y in loader:
        x = x.clone().requires_grad_(True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        x_adv = (x + eps * x.grad.sign()).clamp(0, 1)
        correct += (model(x_adv).argmax(1) == y).sum().item()
    return correct


net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
print(evaluate_fgsm(net, torch.load("test.pt")))
