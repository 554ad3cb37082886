# Each optimizer of the dict is zeroed and stepped through the same
# computed key: pfc cannot tell the entries apart, so it says nothing.
import torch
import torch.nn as nn

nets = {"G": nn.Linear(16, 32).cuda(), "D": nn.Linear(32, 1).cuda()}
opts = {k: torch.optim.Adam(m.parameters()) for k, m in nets.items()}

for batch in loader:
    for name in ["D", "G"]:
        opts[name].zero_grad()
        loss = compute_loss(nets, name, batch.cuda())
        loss.backward()
        opts[name].step()
