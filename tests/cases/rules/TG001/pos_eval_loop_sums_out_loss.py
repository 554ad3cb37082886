# Eval loop with no no_grad and no backward sums the attached out.loss: every batch's graph stays alive (TG001 error, plus TG003).
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
model.eval()
val_batches = torch.load("val_batches.pt")

total_loss = 0.0
for batch in val_batches:
    batch = {k: v.cuda() for k, v in batch.items()}
    out = model(**batch)
    total_loss += out.loss

print("val loss", (total_loss / len(val_batches)).item())
