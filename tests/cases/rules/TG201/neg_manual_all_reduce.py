# Gradients averaged by hand with all_reduce: synchronised without DDP.
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
world = dist.get_world_size()
for x, y in loader:
    loss = torch.nn.functional.nll_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
        p.grad /= world
    opt.step()
