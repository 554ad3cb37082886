# Per-task scalar losses logged in an inner loop after the step's backward(): TG001 warning (scalar, backward ran), not the no-backward error.
import torch
import torch.nn as nn
import torch.nn.functional as F


def train(model, opt, batches):
    task_log = []
    for x, y_cls, y_reg in batches:
        cls_logits, reg_out = model(x)
        losses = [F.cross_entropy(cls_logits, y_cls), F.mse_loss(reg_out, y_reg)]
        opt.zero_grad()
        (losses[0] + losses[1]).backward()
        opt.step()
        for task_loss in losses:
            task_log.append(task_loss)
    print("logged", len(task_log))


class TwoHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk, self.cls, self.reg = nn.Linear(32, 32), nn.Linear(32, 3), nn.Linear(32, 1)

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        return self.cls(h), self.reg(h)


net = TwoHead()
train(net, torch.optim.Adam(net.parameters()), torch.load("multitask.pt"))
