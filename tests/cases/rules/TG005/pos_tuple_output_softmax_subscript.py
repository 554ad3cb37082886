# The model returns (features, probabilities); out[1], the probabilities,
# go into cross_entropy, which applies log_softmax again: a double softmax,
# found through a constant index into the returned tuple.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 32)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        feats = torch.relu(self.body(x))
        return feats, F.softmax(self.head(feats), dim=-1)


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in batches:
    out = model(x)
    loss = F.cross_entropy(out[1], y)
    opt.zero_grad()
    loss.backward()
    opt.step()
