# test_model() on a Hugging Face classifier with no no_grad (TG003 in a test* function).
import torch
from transformers import AutoModelForSequenceClassification


def test_model(model, loader):
    model.eval()
    hits = 0
    for batch in loader:
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
        hits += (out.logits.argmax(-1) == batch["labels"]).sum().item()
    return hits


clf = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased", num_labels=2)
print(test_model(clf, torch.load("test_loader.pt")))
