# Building optimizer groups walks the model's parameters: the loop runs once
# per parameter, not per training step, and what it keeps are the leaves
# (a parameter converted with .to(), its name, its dtype, a group dict).
import torch


def param_groups(model, no_decay):
    decay, other, names, dtypes = [], [], [], {}
    for name, param in model.named_parameters():
        names.append(name)
        dtypes[name] = param.dtype
        if name in no_decay:
            other.append(param.to(dtype=torch.float32))
        else:
            decay.append(param)
    groups = [{"params": decay, "weight_decay": 0.01}, {"params": other, "weight_decay": 0.0}]
    kept = []
    for group in groups:
        if group["params"]:
            kept.append(group)
    return kept, names, dtypes


model = torch.nn.Linear(4, 4)
opt = torch.optim.AdamW(param_groups(model, {"bias"})[0])
