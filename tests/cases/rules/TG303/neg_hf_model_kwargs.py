# Hugging Face style: model(**batch).loss over a DataLoader of dicts.
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification


def main(train_dataset, collate, epochs=3):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    loader = DataLoader(train_dataset, batch_size=16, shuffle=True, collate_fn=collate)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    model.train()
    for epoch in range(epochs):
        for batch in loader:
            batch = {k: v.to("cuda") for k, v in batch.items()}
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
