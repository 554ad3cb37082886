# use_reentrant=True asked for explicitly, on the wrapped model.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2-large")
model = get_peft_model(model, LoraConfig(r=8))
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
for batch in loader:
    model(**batch).loss.backward()
