# `cfg.train` / `cfg.eval` attributes of a config object, read as statements (not a finding).
import argparse

import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--train", action="store_true")
parser.add_argument("--eval", action="store_true")
cfg = parser.parse_args()

cfg.train
cfg.eval
model = nn.Linear(2, 2)
if cfg.eval:
    model.eval()
