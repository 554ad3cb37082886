# torch.enable_grad() is explicit inside the test-time adaptation function (not a finding).
import torch
import torch.nn as nn


def test_time_adapt(model, x, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    with torch.enable_grad():
        for _ in range(steps):
            probs = model(x).softmax(1)
            entropy = -(probs * probs.log()).sum(1).mean()
            opt.zero_grad()
            entropy.backward()
            opt.step()
    with torch.no_grad():
        return model(x).argmax(1)


net = nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16), nn.Linear(16, 4))
print(test_time_adapt(net, torch.randn(32, 16)))
