# Guidance: a helper loops over timesteps, collecting model outputs into a
# loss that it returns; the caller differentiates it with torch.autograd.grad.
# The loop's outputs are used for gradients: it is not an evaluation loop.
import torch
import torch.nn as nn


def attention_loss(net, latents, steps):
    losses = []
    for t in steps:
        losses.append(net(latents * t).pow(2).mean())
    return torch.stack(losses).sum()


def guide(net, latents, steps):
    latents = latents.detach().requires_grad_(True)
    loss = attention_loss(net, latents, steps)
    grad = torch.autograd.grad(loss, [latents])[0]
    return latents - 0.1 * grad


denoiser = nn.Sequential(nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 16))
print(guide(denoiser, torch.randn(2, 16), [0.5, 1.0]))
