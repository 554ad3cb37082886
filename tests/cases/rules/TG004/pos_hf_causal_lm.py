# HF causal LM fine-tune on CUDA: the DataLoader over the tokenized dataset has default workers (TG004).
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, DataCollatorForLanguageModeling, AutoTokenizer

tok = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
collate = DataCollatorForLanguageModeling(tok, mlm=False)
loader = DataLoader(torch.load("tokenized.pt"), batch_size=8, shuffle=True, collate_fn=collate)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)

model.train()
for batch in loader:
    batch = {k: v.to("cuda") for k, v in batch.items()}
    out = model(**batch)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
