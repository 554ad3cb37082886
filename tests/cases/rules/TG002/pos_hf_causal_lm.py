# Hugging Face causal LM fine-tune: out.loss.backward() and optimizer.step() with no zero_grad (TG002).
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tok = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
texts = open("corpus.txt").read().splitlines()

model.train()
for text in texts:
    batch = tok(text, return_tensors="pt", truncation=True, max_length=128)
    out = model(**batch, labels=batch["input_ids"])
    loss = out.loss
    loss.backward()
    optimizer.step()
