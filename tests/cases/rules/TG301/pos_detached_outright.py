# The detached loss itself: backward() raises at the first step (element 0 of
# tensors does not require grad); found before the job waits in the queue.
import torch

for x, y in loader:
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits, y).detach()
    loss.backward()
    opt.step()
    opt.zero_grad()
