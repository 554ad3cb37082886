# bfloat16 compute under an fp16 run (a GPU without bf16 would not even get here).
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments

quant = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16, bnb_4bit_use_double_quant=True)
model = AutoModelForCausalLM.from_pretrained("tiiuae/falcon-7b", quantization_config=quant)
training_args = TrainingArguments(output_dir="out", fp16=True, bf16=False)
