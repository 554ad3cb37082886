# A constant regulariser made from a float is added to the model's loss: the
# sum still carries the model's graph.
import torch

for x, y in loader:
    base = torch.nn.functional.mse_loss(model(x), y)
    penalty = torch.tensor(float(step_penalty), requires_grad=True)
    loss = base + penalty
    loss.backward()
    opt.step()
    opt.zero_grad()
