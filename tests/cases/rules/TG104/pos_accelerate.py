# An Accelerate loop over a PEFT model with reentrant checkpointing.
import torch
from accelerate import Accelerator
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

accelerator = Accelerator(gradient_accumulation_steps=4)
model = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-1b")
model = get_peft_model(model, LoraConfig(r=8, target_modules=["query_key_value"]))
model.gradient_checkpointing_enable()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
model, opt, loader = accelerator.prepare(model, opt, loader)
for batch in loader:
    with accelerator.accumulate(model):
        accelerator.backward(model(**batch).loss)
        opt.step()
        opt.zero_grad()
