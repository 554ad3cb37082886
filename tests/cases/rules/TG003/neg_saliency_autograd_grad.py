# Saliency maps via torch.autograd.grad in an eval-named function: gradients are the point (not a finding).
import torch
import torch.nn as nn


def explain_and_evaluate(model, images, labels):
    model.eval()
    images = images.requires_grad_(True)
    scores = model(images).gather(1, labels[:, None]).sum()
    (saliency,) = torch.autograd.grad(scores, images)
    return saliency.abs().amax(dim=1)


def evaluate_saliency(model, batches):
    return [explain_and_evaluate(model, x, y) for x, y in batches]


net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
maps = evaluate_saliency(net, torch.load("batches.pt"))
