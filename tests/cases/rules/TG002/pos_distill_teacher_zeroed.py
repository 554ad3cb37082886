# Distillation zeroes the frozen teacher's grads, not the student's: the student's optimizer steps accumulated grads (TG002).
import torch
import torch.nn as nn
import torch.nn.functional as F

teacher = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))
student = nn.Sequential(nn.Linear(128, 32), nn.ReLU(), nn.Linear(32, 10))
opt = torch.optim.Adam(student.parameters(), lr=1e-3)
batches = torch.load("unlabeled.pt")

for x in batches:
    teacher.zero_grad()
    with torch.no_grad():
        t = F.softmax(teacher(x) / 2.0, dim=-1)
    s = F.log_softmax(student(x) / 2.0, dim=-1)
    loss = F.kl_div(s, t, reduction="batchmean")
    loss.backward()
    opt.step()
