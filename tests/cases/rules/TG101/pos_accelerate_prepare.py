# Accelerate keeps the optimizer's identity through prepare(): it is the one
# built before the adapters were added.
import torch
from accelerate import Accelerator
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

accelerator = Accelerator(mixed_precision="bf16")
model = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-410m")
opt = torch.optim.AdamW(params=model.parameters(), lr=1e-4)
model = get_peft_model(model, LoraConfig(r=4))
model, opt, loader = accelerator.prepare(model, opt, loader)
for batch in loader:
    loss = model(**batch).loss
    accelerator.backward(loss)
    opt.step()
    opt.zero_grad()
