# Everything is frozen, then the LoRA parameters are unfrozen by name.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForSequenceClassification

model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=3)
model = get_peft_model(model, LoraConfig(task_type="SEQ_CLS", r=16))
for param in model.parameters():
    param.requires_grad = False
for name, param in model.named_parameters():
    if "lora_" in name:
        param.requires_grad = True
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
