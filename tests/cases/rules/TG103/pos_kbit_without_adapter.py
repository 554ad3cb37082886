# prepare_model_for_kbit_training freezes the quantised base; no adapter is
# added after it, so nothing requires grad.
import torch
from peft import prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb)
model = prepare_model_for_kbit_training(model)
opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=2e-4)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
