# HF causal LM on CUDA with a DataLoader that already uses workers (not a finding).
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
loader = DataLoader(torch.load("tokenized.pt"), batch_size=8, shuffle=True, num_workers=4, pin_memory=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)

model.train()
for batch in loader:
    batch = {k: v.to("cuda", non_blocking=True) for k, v in batch.items()}
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
