# expect: TG103
# Everything frozen after the adapters were added; the input requires grad,
# so backward() runs and nothing fails: nothing trains either.
import torch
import tiny


def build(frozen=True):
    torch.manual_seed(0)
    model = tiny.add_lora(tiny.MLP(d_in=256, hidden=256), ["fc1"], r=1)
    tiny.freeze_base(model)
    if frozen:
        model.requires_grad_(False)
    x, y = tiny.batch(d_in=256)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return dict(model=model, closure=tiny.classify(model), inputs=(x.requires_grad_(), y),
                optimizer=opt)


if __name__ == "__main__":
    tiny.train(**build())
