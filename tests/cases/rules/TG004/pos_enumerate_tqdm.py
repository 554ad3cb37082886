# The loader is iterated through enumerate(tqdm(loader)) in a CUDA training loop with accumulation (TG004).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from tqdm import tqdm

model = nn.Linear(300, 5).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loader = DataLoader(torch.load("features.pt"), batch_size=16)
accum = 4

for i, (x, y) in enumerate(tqdm(loader)):
    loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda()) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
