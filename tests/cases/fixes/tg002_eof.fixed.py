# TG002 where the step() is the last line of the file, without a newline.
import torch

model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in []:
    model(x).sum().backward()
    optimizer.step()
    optimizer.zero_grad()