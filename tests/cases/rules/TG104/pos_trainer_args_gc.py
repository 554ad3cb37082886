# The HF Trainer enables (reentrant) checkpointing on the PEFT model when it
# trains; nothing enables input gradients.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, task_type="CAUSAL_LM"))
args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=2,
    gradient_checkpointing=True,
    bf16=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds)
trainer.train()
