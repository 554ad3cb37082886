# Rank 1 on the query projection of a 70B model: 0.002% of the weights.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-70b-hf", device_map="auto")
model = get_peft_model(model, LoraConfig(r=1, target_modules=["q_proj"], task_type="CAUSAL_LM"))
