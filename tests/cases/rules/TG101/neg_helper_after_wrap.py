# The optimizer helper runs after the model is wrapped.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForSequenceClassification


def make_optimizer(net, lr):
    return torch.optim.AdamW(filter(lambda p: p.requires_grad, net.parameters()), lr=lr)


def main():
    model = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=2)
    model = get_peft_model(model, LoraConfig(task_type="SEQ_CLS", r=16))
    opt = make_optimizer(model, 1e-4)
    for batch in train_loader:
        model(**batch).loss.backward()
        opt.step()
        opt.zero_grad()


main()
