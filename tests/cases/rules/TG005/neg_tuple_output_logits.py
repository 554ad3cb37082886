# The model returns (logits, probabilities); the logits (first element) go
# into cross_entropy and the probabilities are only logged: not a double
# softmax. The elements of the returned tuple keep their own facts.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        logits = self.head(x)
        return logits, F.softmax(logits, dim=-1)


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in batches:
    logits, probs = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(probs.max().item())
