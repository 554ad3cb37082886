# expect: TG104
# Reentrant checkpointing over a frozen base whose input needs no grad: the
# adapters inside the checkpointed block get no gradient.
import torch
import torch.utils.checkpoint as cp
import tiny


class Net(tiny.MLP):
    def __init__(self, reentrant):
        super().__init__(d_in=256, hidden=256)
        self.gradient_checkpointing = True
        self.reentrant = reentrant

    def forward(self, x):
        h = cp.checkpoint(lambda t: self.act(self.fc1(t)), x, use_reentrant=self.reentrant)
        return self.fc2(h)


def build(reentrant=True):
    torch.manual_seed(0)
    model = tiny.add_lora(Net(reentrant), ["fc1"], r=1)
    tiny.freeze_base(model)
    model.fc2.requires_grad_(True)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(d_in=256),
                optimizer=opt)


if __name__ == "__main__":
    tiny.train(**build())
