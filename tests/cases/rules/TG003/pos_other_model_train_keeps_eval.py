# teacher.train() switches the teacher, not the student: the student's forward after student.eval() still records autograd (TG003).
import torch
import torch.nn as nn

student = nn.Sequential(nn.Linear(20, 50), nn.ReLU(), nn.Linear(50, 2))
teacher = nn.Sequential(nn.Linear(20, 80), nn.ReLU(), nn.Linear(80, 2))
student.eval()
teacher.train()
sample = torch.randn(4, 20)
scores = student(sample)
print(scores.softmax(-1))
