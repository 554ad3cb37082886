# Compute dtype and training precision agree.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments

bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb_config)
args = TrainingArguments(output_dir="out", bf16=True)
