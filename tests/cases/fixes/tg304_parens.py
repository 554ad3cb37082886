# TG304: the missing parentheses are added; the comment after them stays.
import torch

model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in []:
    optimizer.zero_grad  # reset
    model(x).sum().backward()
    optimizer.step()
model.eval
