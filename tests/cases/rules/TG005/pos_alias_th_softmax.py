# `import torch as th`: th.softmax output into th.nn.functional.cross_entropy (TG005).
import torch as th


def compute_loss(logits, targets):
    probs = th.softmax(logits, dim=-1)
    return th.nn.functional.cross_entropy(probs, targets)


w = th.randn(16, 4, requires_grad=True)
for step in range(10):
    loss = compute_loss(th.randn(8, 16) @ w, th.randint(0, 4, (8,)))
    loss.backward()
