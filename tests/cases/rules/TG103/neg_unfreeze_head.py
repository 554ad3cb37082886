# Freeze all, then unfreeze the classifier head: the head trains.
import torch
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased", num_labels=2)
model.requires_grad_(False)
model.classifier.requires_grad_(True)
trainer = Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=train_ds)
trainer.train()
