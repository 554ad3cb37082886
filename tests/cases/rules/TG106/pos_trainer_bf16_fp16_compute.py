# QLoRA with float16 compute under a bf16 Trainer run.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments

bnb_config = BitsAndBytesConfig(
    load_in_4bit=True,
    bnb_4bit_quant_type="nf4",
    bnb_4bit_compute_dtype=torch.float16,
)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb_config)
args = TrainingArguments(output_dir="out", bf16=True, per_device_train_batch_size=4)
Trainer(model=model, args=args, train_dataset=train_ds).train()
