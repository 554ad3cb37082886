# The precision comes from the command line: pfc cannot tell which.
import argparse
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments

parser = argparse.ArgumentParser()
parser.add_argument("--bf16", action="store_true")
cli = parser.parse_args()
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained("gpt2", quantization_config=bnb)
args = TrainingArguments(output_dir="out", bf16=cli.bf16)
