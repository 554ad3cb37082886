# With cfg.use_pooler the pooler is registered, but forward takes the first
# token directly: the pooler's parameters are never trained.
import torch
import torch.nn as nn
from transformers import AutoModel, Trainer, TrainingArguments


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(cfg.name)
        if cfg.use_pooler:
            self.pooler = nn.Linear(cfg.hidden, cfg.hidden)
        self.classifier = nn.Linear(cfg.hidden, cfg.labels)

    def forward(self, input_ids, attention_mask=None, labels=None):
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        logits = self.classifier(h[:, 0])
        loss = nn.functional.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits}


def run(cfg, train_ds):
    model = Classifier(cfg)
    trainer = Trainer(model=model, args=TrainingArguments("out"), train_dataset=train_ds)
    trainer.train()
