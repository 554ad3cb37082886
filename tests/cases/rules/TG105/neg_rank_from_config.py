# The rank comes from a config object.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


def setup(cfg):
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    return get_peft_model(model, LoraConfig(r=cfg.lora_rank, target_modules=["c_attn", "c_fc"]))
