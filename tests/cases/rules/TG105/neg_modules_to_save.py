# modules_to_save trains a full copy of the head as well: the count is not LoRA's alone.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model = get_peft_model(model, LoraConfig(r=512, target_modules=["c_attn", "c_fc"], modules_to_save=["lm_head"]))
