# Rank 1024 on all seven projections of Llama-2-7B.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


def build():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
    cfg = LoraConfig(
        r=1024,
        lora_alpha=2048,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    )
    return get_peft_model(model, cfg)
