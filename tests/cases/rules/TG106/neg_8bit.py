# 8-bit quantisation has no 4-bit compute dtype; the keyword does nothing.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments

bnb = BitsAndBytesConfig(load_in_8bit=True, bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained("facebook/opt-6.7b", quantization_config=bnb)
args = TrainingArguments(output_dir="out", bf16=True)
