# DDP and torch.compile after the optimizer share the same parameters: not a
# change of what trains.
import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
model = DDP(model, device_ids=[0])
model = torch.compile(model)
for batch in loader:
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
