# r=512 on GPT-2's attention and MLP inputs trains a quarter of the model.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model = get_peft_model(model, LoraConfig(r=512, lora_alpha=1024, target_modules=["c_attn", "c_fc"]))
