# QLoRA done right: prepare the quantised base, then add the adapters.
import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb)
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "v_proj"]))
opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=2e-4)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
