# HF classifier: the loss comes from out.loss; softmax over out.logits is only for reporting (not a finding).
import torch
from transformers import AutoModelForSequenceClassification


def train_one_epoch(model, loader, opt):
    model.train()
    for batch in loader:
        out = model(**batch)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
        p_pos = out.logits.detach().softmax(-1)[:, 1].mean().item()
        print(f"loss={out.loss.item():.3f} p_pos={p_pos:.2f}")


clf = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
train_one_epoch(clf, torch.load("loader.pt"), torch.optim.AdamW(clf.parameters(), lr=2e-5))
