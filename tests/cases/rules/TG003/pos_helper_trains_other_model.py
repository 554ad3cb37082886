# to_train(m) puts back in train mode only the object it is given (the teacher); the student evaluated after student.eval() still records autograd (TG003).
import torch
import torch.nn as nn


def to_train(m):
    m.train()


student = nn.Sequential(nn.Linear(20, 50), nn.ReLU(), nn.Linear(50, 2))
teacher = nn.Sequential(nn.Linear(20, 80), nn.ReLU(), nn.Linear(80, 2))
student.eval()
to_train(teacher)
sample = torch.randn(4, 20)
scores = student(sample)
print(scores.softmax(-1))
