# TG003 regions whose no_grad would change what the program computes get no
# fix: a loop whose outputs a caller differentiates (guidance by attention
# loss), a generator that yields inside its loop (no_grad would leak to the
# consumer), an async evaluation (a decorator does not hold while it awaits).
import torch

net = torch.nn.Linear(4, 4)


def attention_losses(maps):
    losses = []
    for m in maps:
        losses.append(net(m).mean())
    return losses


def guide(latents, maps):
    loss = max(attention_losses(maps))
    return torch.autograd.grad(loss, [latents])[0]


def stream_predictions(loader):
    for x in loader:
        yield net(x)


async def evaluate(loader):
    total = 0
    for x in loader:
        total += net(x).sum().item()
    return total


guide(torch.zeros(4, requires_grad=True), [])
print(list(stream_predictions(torch.load("batches.pt"))))
