# `self.train` on a plain Python (non-Module) class holding a flag, read as a statement (not a finding).
class Experiment:
    def __init__(self, mode):
        self.train = mode == "train"
        self.eval = mode == "eval"

    def describe(self):
        self.train
        self.eval
        return "train" if self.train else "eval"


print(Experiment("train").describe())
