# expect: TG102
# Adapters added by hand, the base never frozen: a full fine-tune.
import torch
import tiny


def build(freeze=False):
    torch.manual_seed(0)
    model = tiny.add_lora(tiny.MLP(d_in=256, hidden=256), ["fc1"], r=1)
    if freeze:
        tiny.freeze_base(model)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(d_in=256),
                optimizer=opt)


if __name__ == "__main__":
    tiny.train(**build())
