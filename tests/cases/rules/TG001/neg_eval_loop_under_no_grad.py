# Eval loop summing out.loss under torch.no_grad(): nothing is attached (not a finding).
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
model.eval()
val_batches = torch.load("val_batches.pt")

total_loss = 0.0
with torch.no_grad():
    for batch in val_batches:
        batch = {k: v.cuda() for k, v in batch.items()}
        out = model(**batch)
        total_loss += out.loss

print("val loss", total_loss / len(val_batches))
