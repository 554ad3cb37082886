# trl's SFTConfig asks for bf16; the compute dtype is given as a string.
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
from trl import SFTConfig, SFTTrainer

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype="float16")
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B", quantization_config=bnb)
config = SFTConfig(output_dir="out", bf16=True, max_seq_length=2048)
SFTTrainer(model=model, args=config, train_dataset=ds).train()
