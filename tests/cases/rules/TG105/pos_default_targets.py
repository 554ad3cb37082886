# PEFT's default targets for GPT-2 (c_attn) at rank 2048.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = get_peft_model(AutoModelForCausalLM.from_pretrained("openai-community/gpt2"), LoraConfig(r=2048))
