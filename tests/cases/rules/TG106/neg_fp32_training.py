# No mixed precision asked for anywhere.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained("gpt2", quantization_config=bnb)
args = TrainingArguments(output_dir="out", learning_rate=2e-4)
