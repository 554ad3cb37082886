# Hugging Face: `out.loss.backward` without parentheses (TG304).
import torch
from transformers import AutoModelForCausalLM


def train_step(model, batch, opt):
    out = model(**batch)
    out.loss.backward
    opt.step()
    opt.zero_grad()


lm = AutoModelForCausalLM.from_pretrained("gpt2")
train_step(lm, torch.load("batch.pt"), torch.optim.AdamW(lm.parameters(), lr=5e-5))
