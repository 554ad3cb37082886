import torch.nn as nn
from backbone import Backbone


class Classifier(Backbone):
    def __init__(self, dim=64, classes=4):
        super().__init__(dim)
        self.head = nn.Linear(dim, classes)


class Unrelated:
    pass
