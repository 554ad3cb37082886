# The script picks bf16 or fp16 by GPU: the training precision is not one value.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained("gpt2", quantization_config=bnb)
if torch.cuda.is_bf16_supported():
    args = TrainingArguments(output_dir="out", bf16=True)
else:
    args = TrainingArguments(output_dir="out", fp16=True)
