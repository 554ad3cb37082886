# expect: none
# The optimizer is built before the adapters: it holds none of them.
import torch
import tiny


def build(optimizer_after=True):
    torch.manual_seed(0)
    model = tiny.MLP(d_in=256, hidden=256)
    if not optimizer_after:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tiny.add_lora(model, ["fc1"], r=1)
    tiny.freeze_base(model)
    if optimizer_after:
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(d_in=256),
                optimizer=opt)


if __name__ == "__main__":
    tiny.train(**build())
