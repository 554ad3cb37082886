# A literal options dict that leaves num_workers at 0 is read like keywords
# (finding at the DataLoader call).
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader_kw = {"batch_size": 64, "shuffle": True, "num_workers": 0}
train_loader = DataLoader(train_set, **loader_kw)

for epoch in range(10):
    for x, y in train_loader:
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
