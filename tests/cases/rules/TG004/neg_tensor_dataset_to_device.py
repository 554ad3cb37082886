# The whole dataset is moved to the GPU with .to(device) before it is wrapped:
# batches are slices of device tensors, workers would not help (not a finding).
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
features = torch.randn(10_000, 32).to(device)
targets = torch.randint(0, 4, (10_000,)).to(device=device)
loader = DataLoader(TensorDataset(features, targets), batch_size=256, shuffle=True)

for epoch in range(20):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
