# TG001 findings whose stored value pfc cannot prove to be a tensor get no
# fix: `name.detach()` on a str, or `(h,).detach()` on a tuple, would raise.
import torch

model = torch.nn.Linear(4, 2)
names, states = [], ()
for name, param in model.named_parameters():
    name = name.removeprefix("module.")
    names.append(name)
    states += (param * 2,)
print(names, states)
