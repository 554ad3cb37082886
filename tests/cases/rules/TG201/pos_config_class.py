# Settings in a dataclass, a torchrun launch, no wrapper.
from dataclasses import dataclass
import torch
import torch.distributed as dist


@dataclass
class Config:
    lr: float = 3e-4
    steps: int = 1000


def run(cfg: Config):
    dist.init_process_group("nccl")
    model = GPT(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    for step in range(cfg.steps):
        x, y = next_batch()
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
