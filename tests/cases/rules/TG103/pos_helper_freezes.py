# A helper freezes every parameter; it is called after the adapters exist.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


def freeze(module):
    for p in module.parameters():
        p.requires_grad = False


def main():
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    model = get_peft_model(model, LoraConfig(r=4))
    freeze(model)
    opt = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-4)
    for batch in loader:
        model(**batch).loss.backward()
        opt.step()
        opt.zero_grad()


main()
