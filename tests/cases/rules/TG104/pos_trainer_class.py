# A trainer class enables checkpointing on the PEFT model it just built.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


class SFT:
    def __init__(self, cfg):
        self.model = AutoModelForCausalLM.from_pretrained(cfg.model_name)
        self.model = get_peft_model(self.model, LoraConfig(r=cfg.rank))
        self.model.gradient_checkpointing_enable()
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)

    def step(self, batch):
        loss = self.model(**batch).loss
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
