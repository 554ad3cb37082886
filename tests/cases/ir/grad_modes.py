# Grad mode is lexical: no_grad / inference_mode / set_grad_enabled(False)
# regions and @torch.no_grad() functions compute detached values.
import torch

@torch.no_grad()
def predict(model, x):
    return model(x).argmax(-1)

def evaluate(model, xs):
    outs = []
    with torch.no_grad():
        for x in xs:
            outs.append(model(x))
    with torch.inference_mode():
        y = model(xs[0])
    with torch.set_grad_enabled(False):
        z = model(xs[1])
    with torch.enable_grad():
        w = model(xs[2])
    return outs, y, z, w
