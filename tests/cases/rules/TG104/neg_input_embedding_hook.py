# The older recipe: a forward hook on the input embeddings.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


def make_inputs_require_grad(module, inputs, output):
    output.requires_grad_(True)


model = AutoModelForCausalLM.from_pretrained("bigscience/bloom-1b7")
model = get_peft_model(model, LoraConfig(r=8))
model.get_input_embeddings().register_forward_hook(make_inputs_require_grad)
model.gradient_checkpointing_enable()
