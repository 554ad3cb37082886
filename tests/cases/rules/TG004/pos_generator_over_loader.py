# The GAN idiom: an endless generator over the loader, drawn with next() in
# a step loop; the loader is passed into the training function.
import torch
import torch.nn as nn
from torch.utils import data


def sample_data(loader):
    while True:
        for batch in loader:
            yield batch


def train(loader, generator, discriminator, g_optim, d_optim, device, iters):
    loader = sample_data(loader)
    for i in range(iters):
        real = next(loader).to(device)
        fake = generator(torch.randn(real.size(0), 128, device=device))
        d_loss = nn.functional.softplus(discriminator(fake)).mean() + nn.functional.softplus(-discriminator(real)).mean()
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()


device = "cuda"
gen = nn.Linear(128, 3 * 64 * 64).to(device)
disc = nn.Linear(3 * 64 * 64, 1).to(device)
loader = data.DataLoader(dataset, batch_size=16, sampler=data.RandomSampler(dataset), drop_last=True)
train(loader, gen, disc, torch.optim.Adam(gen.parameters()), torch.optim.Adam(disc.parameters()), device, 800000)
