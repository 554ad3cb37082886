# Accelerate wraps the model in prepare(); the process group is its business.
import torch
import torch.distributed as dist
from accelerate import Accelerator

dist.init_process_group("nccl")
accelerator = Accelerator()
model = Net()
opt = torch.optim.AdamW(model.parameters())
model, opt, loader = accelerator.prepare(model, opt, loader)
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    accelerator.backward(loss)
    opt.step()
    opt.zero_grad()
