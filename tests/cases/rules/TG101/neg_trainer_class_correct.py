# The trainer class wraps the model before it builds the optimizer.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


class LoraTrainer:
    def __init__(self, name, rank):
        self.model = AutoModelForCausalLM.from_pretrained(name)
        self.model = get_peft_model(self.model, LoraConfig(r=rank, target_modules=["q_proj", "v_proj"]))
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)

    def train(self, loader):
        for batch in loader:
            loss = self.model(**batch).loss
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
