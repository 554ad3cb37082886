# A Hugging Face model's outputs.loss / outputs["loss"] is the loss: kept
# across steps after backward() it is a scalar (a warning: graph nodes stay
# on the host), not a logits-sized tensor.
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
history = []
running = {"loss": 0.0}

for batch in loader:
    batch = {k: v.cuda() for k, v in batch.items()}
    outputs = model(**batch)
    outputs.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    history.append(outputs.loss)
    running["loss"] += outputs["loss"]
