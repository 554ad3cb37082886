# Hugging Face Trainer owns the loop and zeroes gradients itself (not a finding).
from datasets import load_dataset
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
ds = load_dataset("imdb")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=1)
trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"])
trainer.train()
metrics = trainer.evaluate()
print(metrics)
