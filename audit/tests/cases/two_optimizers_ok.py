# expect: none
# A GAN-like loop: the first step updates D on detached fakes; G's parameters
# get no gradient in that step and belong to G's optimizer (steps later): no TG401.
import torch, torch.nn as nn, torch.nn.functional as F
import tiny


def build():
    torch.manual_seed(0)
    G, D = nn.Linear(4, 8), tiny.MLP(d_in=8, d_out=1)
    opt_g = torch.optim.Adam(G.parameters())
    opt_d = torch.optim.Adam(D.parameters())
    z = torch.randn(16, 4)
    real = torch.randn(16, 8)

    def closure():
        fake = G(z)
        ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
        return (F.binary_cross_entropy_with_logits(D(real), ones)
                + F.binary_cross_entropy_with_logits(D(fake.detach()), zeros))
    return dict(model=D, closure=closure, inputs=(), optimizer=opt_d, G=G, opt_g=opt_g)


if __name__ == "__main__":
    b = build()
    for _ in range(2):
        b["closure"]().backward()
        b["optimizer"].step()
        b["optimizer"].zero_grad()
