# Non-reentrant checkpointing records the graph whatever its inputs.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2-large")
model = get_peft_model(model, LoraConfig(r=8))
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
for batch in loader:
    model(**batch).loss.backward()
