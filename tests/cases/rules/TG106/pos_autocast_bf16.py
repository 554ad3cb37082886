# A hand-written loop under bf16 autocast, with half-precision 4-bit compute.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig


def load():
    cfg = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.half)
    return AutoModelForCausalLM.from_pretrained("gpt2-xl", quantization_config=cfg)


model = load()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for batch in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(**batch).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
