# Parameter groups give the encoder and decoder their own learning rates;
# the output head is in neither group.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2Seq(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.encoder = nn.GRU(256, 256, batch_first=True)
        self.decoder = nn.GRU(256, 256, batch_first=True)
        self.out = nn.Linear(256, vocab)

    def forward(self, src, tgt):
        _, h = self.encoder(src)
        dec, _ = self.decoder(tgt, h)
        return self.out(dec)


model = Seq2Seq(32000)
optimizer = torch.optim.Adam([
    {"params": model.encoder.parameters(), "lr": 1e-4},
    {"params": model.decoder.parameters(), "lr": 5e-4},
])
for src, tgt, labels in loader:
    logits = model(src, tgt)
    loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
