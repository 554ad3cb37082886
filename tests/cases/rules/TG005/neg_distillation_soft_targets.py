# Distillation: teacher softmax is the *target* of cross_entropy / kl_div; the student input is logits (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

teacher = nn.Linear(64, 10)
student = nn.Linear(64, 10)
opt = torch.optim.Adam(student.parameters())


def distill_step(x, T=4.0):
    with torch.no_grad():
        soft_targets = F.softmax(teacher(x) / T, dim=-1)
    s_logits = student(x)
    loss = F.cross_entropy(s_logits / T, soft_targets)
    loss = loss + F.kl_div(F.log_softmax(s_logits / T, dim=-1), soft_targets, reduction="batchmean")
    opt.zero_grad()
    loss.backward()
    opt.step()


distill_step(torch.randn(32, 64))
