# One forward pass before the loop; the loop stores per-sample slices of its
# output. The slices share that single graph: nothing grows per iteration.
import torch

latent = torch.randn(8, 512, requires_grad=True)
images = generator(latent)
results = {}
for i, name in enumerate(names):
    results[name] = {"img": images[i], "latent": latent[i]}
torch.save(results, "out.pt")
