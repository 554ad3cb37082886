# An elif chain: both eval() arms know phase is not "train", so the
# backward() under phase == "train" is not on their path.
import torch
from torch.utils.data import DataLoader

def train(model, loaders, opt, crit):
    for epoch in range(10):
        for phase in ["train", "val", "test"]:
            if phase == "train":
                model.train()
            elif phase == "val":
                model.eval()
            else:
                model.eval()
            for x, y in loaders[phase]:
                out = model(x)
                loss = crit(out, y)
                if phase == "train":
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
