# A detached target (teacher output) feeds a loss on the student's output.
import torch

for x in loader:
    with torch.no_grad():
        target = teacher(x)
    loss = torch.nn.functional.kl_div(student(x).log_softmax(-1), target.detach().softmax(-1))
    loss.backward()
    opt.step()
    opt.zero_grad()
