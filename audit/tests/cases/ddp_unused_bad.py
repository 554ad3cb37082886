# expect: TG406
# DDP without find_unused_parameters over a forward that skips `extra`:
# the second step would raise.
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
import tiny
from unused_submodule_bad import Net


def build(use_extra=False):
    tiny.process_group()
    torch.manual_seed(0)
    model = DDP(Net(use_extra))
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
