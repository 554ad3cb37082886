# to_train(m) puts back in train mode the object it is given: here the student itself, before its forward (not a finding).
import torch
import torch.nn as nn


def to_train(m):
    m.train()


student = nn.Sequential(nn.Linear(20, 50), nn.ReLU(), nn.Linear(50, 2))
teacher = nn.Sequential(nn.Linear(20, 80), nn.ReLU(), nn.Linear(80, 2))
to_train(teacher)
student.eval()
to_train(student)
sample = torch.randn(4, 20)
scores = student(sample)
print(scores.softmax(-1))
