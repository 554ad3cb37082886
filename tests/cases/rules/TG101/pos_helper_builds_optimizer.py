# The optimizer comes from a helper called before the model is wrapped.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForSequenceClassification


def make_optimizer(net, lr):
    decay = [p for n, p in net.named_parameters() if "bias" not in n]
    return torch.optim.AdamW(decay, lr=lr, weight_decay=0.01)


def main():
    model = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=2)
    opt = make_optimizer(model, 1e-4)
    model = get_peft_model(model, LoraConfig(task_type="SEQ_CLS", r=16))
    model.cuda()
    for epoch in range(3):
        for batch in train_loader:
            out = model(**batch)
            out.loss.backward()
            opt.step()
            opt.zero_grad()


main()
