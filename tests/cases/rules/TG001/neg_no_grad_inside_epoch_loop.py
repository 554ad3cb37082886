# Top-level epoch loop: validation sums out.loss inside `with torch.no_grad():`, so nothing is attached (not a finding).
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
train_batches, val_batches = torch.load("train.pt"), torch.load("val.pt")

for epoch in range(3):
    model.train()
    for batch in train_batches:
        model(**batch).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    val_loss = 0.0
    with torch.no_grad():
        for batch in val_batches:
            val_loss += model(**batch).loss
    print(epoch, val_loss.item() / len(val_batches))
