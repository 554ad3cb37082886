# Accelerate runs the loop in bf16; the quantised base computes in float16.
import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

accelerator = Accelerator(mixed_precision="bf16")
model = AutoModelForCausalLM.from_pretrained(
    "mistralai/Mistral-7B-v0.1",
    quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16),
)
model = accelerator.prepare(model)
