# Old-style Variable rebuilt from .data.
import torch
from torch.autograd import Variable

for inputs, target in loader:
    output = net(inputs)
    loss = criterion(output, target)
    loss = Variable(loss.data, requires_grad=True)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
