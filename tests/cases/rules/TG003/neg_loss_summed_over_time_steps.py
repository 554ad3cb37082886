# An RNN unrolled by hand: the inner loop over time steps never calls
# backward(), but the loss it sums does, after the loop (not a finding).
import torch
import torch.nn as nn

cell = nn.RNNCell(4, 8).cuda()
head = nn.Linear(8, 4).cuda()
opt = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()))
criterion = nn.CrossEntropyLoss()

for epoch in range(100):
    opt.zero_grad()
    hidden = torch.zeros(1, 8, device="cuda")
    loss = 0
    for x, y in zip(inputs, labels):
        hidden = cell(x.cuda(), hidden)
        loss += criterion(head(hidden), y.cuda())
    loss.backward()
    opt.step()
