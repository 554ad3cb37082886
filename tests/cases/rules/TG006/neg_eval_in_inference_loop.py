# model.eval() inside a loop that never calls backward(): there is no training to leak into (not a finding).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(16, 16), nn.Dropout(0.5), nn.Linear(16, 2))
checkpoints = ["ckpt_1.pt", "ckpt_2.pt", "ckpt_3.pt"]
x_test = torch.load("x_test.pt")

for path in checkpoints:
    model.load_state_dict(torch.load(path))
    model.eval()
    with torch.no_grad():
        print(path, model(x_test).argmax(1).float().mean().item())
