# init_process_group in a setup helper; main() trains without any wrapper.
import torch
import torch.distributed as dist


def init_distributed(backend="nccl"):
    dist.init_process_group(backend=backend)
    return dist.get_rank(), dist.get_world_size()


def main(cfg):
    rank, world = init_distributed()
    model = build_model(cfg).to(f"cuda:{rank}")
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    for batch in loader:
        out = model(batch["x"].cuda())
        loss = torch.nn.functional.mse_loss(out, batch["y"].cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
