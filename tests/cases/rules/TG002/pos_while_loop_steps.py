# A while loop over steps with backward() and step() and no reset of gradients (TG002).
import torch
import torch.nn as nn

policy = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
optim = torch.optim.Adam(policy.parameters(), lr=3e-4)

step = 0
while step < 10_000:
    obs = torch.randn(32, 4)
    logp = torch.log_softmax(policy(obs), dim=-1)
    advantages = torch.randn(32)
    loss = -(logp[:, 0] * advantages).mean()
    loss.backward()
    optim.step()
    step += 1
