# A freeze loop over every parameter runs after get_peft_model.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForSequenceClassification

model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=3)
model = get_peft_model(model, LoraConfig(task_type="SEQ_CLS", r=16))
for param in model.parameters():
    param.requires_grad = False
trainable = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(trainable, lr=1e-4)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
