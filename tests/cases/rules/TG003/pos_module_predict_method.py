# An nn.Module's own predict() method runs the forward without no_grad (TG003 in a predict* function).
import torch
import torch.nn as nn


class TextClassifier(nn.Module):
    def __init__(self, vocab, n_classes):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, 64)
        self.fc = nn.Linear(64, n_classes)

    def forward(self, tokens, offsets):
        return self.fc(self.emb(tokens, offsets))

    def predict(self, tokens, offsets):
        self.eval()
        return self(tokens, offsets).argmax(dim=1)


clf = TextClassifier(20_000, 4)
print(clf.predict(torch.randint(0, 20_000, (50,)), torch.tensor([0, 10, 25])))
