# A library module's own predict() runs its head without no_grad but never
# switches to eval mode itself: it runs under whatever grad mode its caller
# chose (the module is library code, not an evaluation routine).
import torch
import torch.nn as nn


class ShortlistHead(nn.Module):
    def __init__(self, dim, n):
        super().__init__()
        self.head = nn.Linear(dim, n)

    def forward(self, x):
        return self.head(x).log_softmax(-1)

    def predict(self, x):
        out = self.head(x)
        return torch.argmax(out, dim=1)
