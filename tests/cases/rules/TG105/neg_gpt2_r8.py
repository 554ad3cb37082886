# The usual setup: 0.24% of GPT-2 trains.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["c_attn"]))
