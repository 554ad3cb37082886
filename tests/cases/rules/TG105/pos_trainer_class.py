# A trainer class sets up rank-1 LoRA on the query projection of a 70B model.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


class Finetuner:
    def __init__(self):
        self.model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-70b-hf")
        self.config = LoraConfig(r=1, lora_alpha=2, target_modules=["q_proj"])
        self.model = get_peft_model(self.model, LoraConfig(r=1, lora_alpha=2, target_modules=["q_proj"]))
