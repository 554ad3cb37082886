# Model code pfc sees through a class that defines forward (its base comes
# from another package: the tiles are kept on purpose) and a test class: TG001
# reports neither, and no fix may land there (tests/fix_safety.sh).
import torch
from diffusers import ModelMixin
from testing_utils import DistributedTest


class TiledDecoder(ModelMixin):
    def __init__(self):
        super().__init__()
        self.decoder = torch.nn.Conv2d(4, 3, 3)

    def tiled_decode(self, z):
        rows = []
        for tile in z.split(64, dim=-1):
            rows.append(self.decoder(tile))
        return torch.cat(rows, dim=-1)

    def forward(self, z):
        return self.tiled_decode(z)


class TestLoop(DistributedTest):
    def run_steps(self, inputs):
        model = torch.nn.Linear(4, 2)
        losses = []
        for _ in range(3):
            losses.append(model(inputs).sum())
        print(losses)
