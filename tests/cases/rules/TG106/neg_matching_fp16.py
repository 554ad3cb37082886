# fp16 everywhere (a T4): consistent.
import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

accelerator = Accelerator(mixed_precision="fp16")
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained("gpt2", quantization_config=bnb)
