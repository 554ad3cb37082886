# `loss.grad_fn` / `w.grad` / `loss.item` as statements are not the listed training methods (not a finding).
import torch

w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
loss = (w * x).sum()
loss.grad_fn
loss.backward()
w.grad
loss.item
print(w.grad)
