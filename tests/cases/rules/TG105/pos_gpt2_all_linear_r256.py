# Every GPT-2 linear at rank 256.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

base = AutoModelForCausalLM.from_pretrained("gpt2")
config = LoraConfig(r=256, target_modules=["c_attn", "c_proj", "c_fc"], lora_dropout=0.05)
model = get_peft_model(base, config)
model.print_trainable_parameters()
