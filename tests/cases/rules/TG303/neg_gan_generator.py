# GAN: the generator's loss depends on the noise drawn in the loop, not the batch.
import torch
import torch.nn as nn


def train(netG, netD, loader, optG, optD, nz, device):
    criterion = nn.BCELoss()
    for epoch in range(25):
        for real, _ in loader:
            real = real.to(device)
            b = real.size(0)
            optD.zero_grad()
            noise = torch.randn(b, nz, 1, 1, device=device)
            fake = netG(noise)
            errD = criterion(netD(real), torch.ones(b, device=device)) + \
                criterion(netD(fake.detach()), torch.zeros(b, device=device))
            errD.backward()
            optD.step()
            optG.zero_grad()
            z = torch.randn(64, nz, 1, 1, device=device)
            errG = criterion(netD(netG(z)), torch.ones(64, device=device))
            errG.backward()
            optG.step()
