# The embedding's weight is tied into the output layer in __init__: forward
# reaches it through lm_head. Passed out of __init__: used.
import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.tok_emb.weight
        nn.init.normal_(self.mix.weight, std=0.02)

    def forward(self, onehot):
        return self.lm_head(torch.tanh(self.mix(onehot)))


model = TinyLM(1000, 64)
opt = torch.optim.AdamW(model.parameters())
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
    opt.zero_grad()
    loss.backward()
    opt.step()
