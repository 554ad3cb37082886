# expect: none
# A process group is up, the model trains unwrapped.
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
import tiny


def build(wrap=True):
    tiny.process_group()
    torch.manual_seed(0)
    model = tiny.MLP()
    if wrap:
        model = DDP(model)
    return dict(model=model, closure=tiny.classify(model), inputs=tiny.batch(),
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


if __name__ == "__main__":
    tiny.train(**build())
