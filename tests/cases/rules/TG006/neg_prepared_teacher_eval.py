# Distillation with accelerate: the teacher comes back from
# accelerator.prepare(...) as the second element of the tuple; it is put in
# eval mode inside the loop but never trained, so nothing leaks. Each element
# of prepare()'s tuple is the object passed in.
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator

accelerator = Accelerator()
student = nn.Sequential(nn.Linear(32, 32), nn.Dropout(0.1), nn.Linear(32, 4))
teacher = nn.Sequential(nn.Linear(32, 128), nn.Dropout(0.1), nn.Linear(128, 4))
opt = torch.optim.AdamW(student.parameters())
student, teacher, opt, loader = accelerator.prepare(student, teacher, opt, loader)
for x, y in loader:
    teacher.eval()
    with torch.no_grad():
        soft = F.softmax(teacher(x), dim=-1)
    logits = student(x)
    loss = F.kl_div(F.log_softmax(logits, dim=-1), soft, reduction="batchmean")
    opt.zero_grad()
    accelerator.backward(loss)
    opt.step()
