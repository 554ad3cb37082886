# Checkpointing enabled on the base before wrapping: PEFT enables input
# gradients itself.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
model.gradient_checkpointing_enable()
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
for batch in loader:
    model(**batch).loss.backward()
