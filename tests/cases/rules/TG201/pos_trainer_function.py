# A train() helper called from main(): the model it is handed was never wrapped.
import torch
import torch.distributed as dist


def train(model, loader, opt, epochs):
    for _ in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


def main(args):
    if args.distributed:
        dist.init_process_group(backend="nccl", init_method="env://")
    model = Classifier(args.classes).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    train(model, make_loader(args), opt, args.epochs)
