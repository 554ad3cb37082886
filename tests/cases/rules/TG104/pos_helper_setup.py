# A setup helper wraps the model and then turns on checkpointing.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


def load_model(name, rank):
    base = AutoModelForCausalLM.from_pretrained(name)
    model = get_peft_model(base, LoraConfig(r=rank))
    model.gradient_checkpointing_enable()
    model.print_trainable_parameters()
    return model


model = load_model("Qwen/Qwen2-1.5B", 16)
