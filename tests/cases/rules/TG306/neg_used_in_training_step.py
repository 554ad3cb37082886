# Lightning: the projection head is used by training_step, not forward (which
# serves inference). Used elsewhere in the class: not a finding.
import torch
import torch.nn as nn
import lightning as L


class SimCLR(L.LightningModule):
    def __init__(self, dim):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 256), nn.ReLU())
        self.projector = nn.Linear(256, 128)

    def forward(self, x):
        return self.encoder(x)

    def training_step(self, batch, batch_idx):
        a, b = batch
        za = self.projector(self(a))
        zb = self.projector(self(b))
        return nn.functional.mse_loss(za, zb)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    L.Trainer(max_epochs=1).fit(SimCLR(32), loader)
