# forward reaches the encoder through self.encode(); the decoder is never
# reached from forward or any other method: dead weight in every step.
import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU())
        self.decoder = nn.Sequential(nn.Linear(hidden, dim), nn.Sigmoid())

    def encode(self, x):
        return self.encoder(x.flatten(1))

    def forward(self, x):
        return self.encode(x)


def build_model(cfg):
    return AutoEncoder(cfg.dim, cfg.hidden)


def train(cfg, loader):
    model = build_model(cfg)
    opt = torch.optim.Adam(model.parameters())
    for x in loader:
        z = model(x)
        loss = z.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
