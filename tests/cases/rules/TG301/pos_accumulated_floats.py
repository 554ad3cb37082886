# Per-sample losses summed as floats, then wrapped in a tensor to backprop.
import torch


class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def step(self, samples):
        total = 0.0
        for x, y in samples:
            total += torch.nn.functional.mse_loss(self.model(x), y).item()
        loss = torch.tensor(total / len(samples), requires_grad=True)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
