# enable_input_require_grads() makes the embeddings' output require grad.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
model.enable_input_require_grads()
model.gradient_checkpointing_enable()
for batch in loader:
    model(**batch).loss.backward()
