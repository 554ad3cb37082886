# Rank 16 on q and v of Llama-2-7B: 0.12%.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
