# The HF Trainer builds its optimizer from the parameters that require grad;
# the model was frozen whole after the adapters were added.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("facebook/opt-125m")
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16))
model.requires_grad_(False)
args = TrainingArguments(output_dir="out", learning_rate=2e-4, num_train_epochs=1)
trainer = Trainer(model=model, args=args, train_dataset=train_ds)
trainer.train()
