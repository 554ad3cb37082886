import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = F.dropout(F.relu(self.fc1(x)), 0.5, training=self.training)
        x = F.dropout(
            x,
            p=0.2, training=self.training,
        )
        return self.fc2(x)
