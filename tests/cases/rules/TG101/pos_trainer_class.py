# A trainer class builds its optimizer in __init__ and wraps the model after
# it; train() steps the stale optimizer.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM


class LoraTrainer:
    def __init__(self, name, rank):
        self.model = AutoModelForCausalLM.from_pretrained(name)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.model = get_peft_model(self.model, LoraConfig(r=rank, target_modules=["q_proj", "v_proj"]))

    def train(self, loader):
        self.model.train()
        for batch in loader:
            loss = self.model(**batch).loss
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
