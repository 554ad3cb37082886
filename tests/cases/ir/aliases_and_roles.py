# Name resolution through imports and aliases; roles from constructors.
import torch as th
import torch.nn.functional as F
from torch import nn, optim as O
from torch.utils.data import DataLoader

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
opt = O.AdamW(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
loader = DataLoader([], batch_size=4)
probs = F.softmax(model(th.randn(3, 4)), dim=-1)
device = th.device("cuda" if th.cuda.is_available() else "cpu")
