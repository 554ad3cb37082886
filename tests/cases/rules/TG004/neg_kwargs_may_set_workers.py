# num_workers set through the ways real scripts pass loader options: a literal
# dict, dict(...), a mapping pfc cannot read (silent), the sixth positional
# argument, *args. None is a finding.
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader_kw = {"num_workers": 4, "pin_memory": True}
train_a = DataLoader(train_set, batch_size=64, **loader_kw)
train_b = DataLoader(train_set, batch_size=64, **dict(num_workers=8))
train_c = DataLoader(train_set, **config.loader_args)
train_d = DataLoader(train_set, 64, True, None, None, 4)
train_e = DataLoader(train_set, *loader_args)


for epoch in range(10):
    for x, y in train_a:
        model(x.to(device)).sum().backward()
    for x, y in train_b:
        model(x.to(device)).sum().backward()
    for x, y in train_c:
        model(x.to(device)).sum().backward()
    for x, y in train_d:
        model(x.to(device)).sum().backward()
    for x, y in train_e:
        model(x.to(device)).sum().backward()
