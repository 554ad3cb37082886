# HF model (class unknown, has dropout): eval() mid-training with no train() after (TG006).
import torch
from transformers import AutoModelForSequenceClassification


def train(model, loader, val_batch, opt):
    model.train()
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 500 == 0:
            model.eval()
            with torch.no_grad():
                print(step, model(**val_batch).loss.item())


m = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=3)
train(m, torch.load("loader.pt"), torch.load("val_batch.pt"), torch.optim.AdamW(m.parameters(), lr=2e-5))
