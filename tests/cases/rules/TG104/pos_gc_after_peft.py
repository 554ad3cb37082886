# Reentrant checkpointing enabled after the base was frozen by get_peft_model,
# and no input gradients: no gradient reaches the adapters.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
model.gradient_checkpointing_enable()
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
