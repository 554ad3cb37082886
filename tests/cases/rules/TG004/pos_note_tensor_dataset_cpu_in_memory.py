# Features tokenized up front and held as CPU tensors in a TensorDataset: a
# batch costs indexing and stacking only, so the default num_workers=0 is a
# note (RULES: a note at most), with the pin_memory/workers help, not a warning.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

device = torch.device("cuda")
all_ids = torch.tensor(features_ids, dtype=torch.long)
all_labels = torch.tensor(features_labels, dtype=torch.long)
train_data = TensorDataset(all_ids, all_labels)
train_loader = DataLoader(train_data, sampler=RandomSampler(train_data), batch_size=32)
model = torch.nn.Embedding(30000, 2).to(device)
opt = torch.optim.AdamW(model.parameters())
for ids, labels in train_loader:
    loss = F.cross_entropy(model(ids.to(device)).mean(1), labels.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
