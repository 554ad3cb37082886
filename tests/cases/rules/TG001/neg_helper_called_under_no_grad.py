# A pipeline: __call__ runs under @torch.no_grad() and calls a helper that
# collects image embeddings in a loop. The helper only ever runs without
# grad, so nothing it keeps is attached to a graph.
import torch
import torch.nn as nn


class Pipeline:
    def __init__(self, encoder: nn.Module):
        self.encoder = encoder

    def encode(self, image):
        return self.encoder(image), torch.zeros(1)

    def prepare_embeds(self, images):
        embeds = []
        for image in images:
            single, negative = self.encode(image)
            embeds.append(torch.cat([negative, single]))
        return embeds

    @torch.no_grad()
    def __call__(self, images):
        return self.prepare_embeds(images)


pipe = Pipeline(nn.Linear(3, 3))
print(pipe([torch.randn(3)]))
