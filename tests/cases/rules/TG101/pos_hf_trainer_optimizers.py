# The optimizer handed to the HF Trainer was built before get_peft_model.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments, get_linear_schedule_with_warmup

model = AutoModelForCausalLM.from_pretrained("facebook/opt-350m")
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
scheduler = get_linear_schedule_with_warmup(optimizer, 100, 1000)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=32, lora_dropout=0.05))
trainer = Trainer(
    model=model,
    args=TrainingArguments(output_dir="out", per_device_train_batch_size=4),
    train_dataset=train_ds,
    optimizers=(optimizer, scheduler),
)
trainer.train()
