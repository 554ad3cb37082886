# A step loop over range() that draws with next(): nanoGPT-style prefetch too.
import torch


def get_batch(data, block, bs):
    ix = torch.randint(len(data) - block, (bs,))
    x = torch.stack([data[i:i + block] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block] for i in ix])
    return x, y


def train(model, loader, data, steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
    it = iter(loader)
    for step in range(steps):
        batch = next(it)
        loss = model(batch["x"], batch["y"])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    X, Y = get_batch(data, 256, 12)
    for step in range(steps):
        logits, loss = model(X, Y)
        X, Y = get_batch(data, 256, 12)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
