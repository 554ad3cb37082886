# Gradient accumulation with a guarded step but no zero_grad anywhere: every update sums all past grads (TG002).
import torch
import torch.nn as nn

model = nn.Linear(100, 10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
accumulation_steps = 4
data = torch.load("batches.pt")

for epoch in range(3):
    for i, (inputs, labels) in enumerate(data):
        loss = criterion(model(inputs), labels) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
