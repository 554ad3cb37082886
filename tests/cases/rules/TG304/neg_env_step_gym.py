# `env.step` on a gym-like environment object, written bare in a debug line, is not an optimizer (not a finding).
import torch
import torch.nn as nn


class Env:
    def reset(self):
        return torch.zeros(4)

    def step(self, action):
        return torch.randn(4), 1.0, False


env = Env()
policy = nn.Linear(4, 2)
obs = env.reset()
env.step
obs, reward, done = env.step(policy(obs).argmax().item())
print(reward)
