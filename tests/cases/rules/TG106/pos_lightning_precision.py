# Lightning trains in bf16-mixed; the 4-bit base computes in float16.
import lightning as L
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig


class LitLM(L.LightningModule):
    def __init__(self):
        super().__init__()
        cfg = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)
        self.model = AutoModelForCausalLM.from_pretrained("gpt2", quantization_config=cfg)

    def training_step(self, batch, batch_idx):
        return self.model(**batch).loss


trainer = L.Trainer(precision="bf16-mixed", max_epochs=1)
trainer.fit(LitLM(), loader)
