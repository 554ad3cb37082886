"""monitor()'s overhead per training step, on a small MLP and a small CNN (CPU,
or CUDA when present): the median step time of plain steps and of steps under
monitor(model, optimizer=opt), in alternating rounds. On the CPU the time is the
process's CPU time (one thread), which other processes' load disturbs far less
than wall time; on CUDA it is wall time after a synchronisation. Prints one line
per model."""
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "audit"))
from pfc_audit import monitor  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def mlp():
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    return model, torch.randn(64, 784), torch.randint(0, 10, (64,))


def cnn():
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    return model, torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))


def steps(model, opt, x, y, n):
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    clock = time.perf_counter if DEVICE == "cuda" else time.process_time
    t0 = clock()
    for _ in range(n):
        F.cross_entropy(model(x), y).backward()
        opt.step()
        opt.zero_grad()
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return (clock() - t0) / n


def bench(name, build, rounds=5, n=10):
    torch.manual_seed(0)
    model, x, y = build()
    model, x, y = model.to(DEVICE), x.to(DEVICE), y.to(DEVICE)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    steps(model, opt, x, y, 5)   # warm up
    plain, watched = [], []
    for _ in range(rounds):
        plain.append(steps(model, opt, x, y, n))
        with monitor(model, on_nonfinite="raise", optimizer=opt):
            watched.append(steps(model, opt, x, y, n))
    p, w = statistics.median(plain), statistics.median(watched)
    modules = sum(1 for _ in model.modules())
    print("monitor overhead, %-4s (%2d modules, %s): %.3f ms/step plain, %.3f ms/step "
          "monitored, %+.3f ms (%+.1f%%)" % (name, modules, DEVICE, 1e3 * p, 1e3 * w,
                                            1e3 * (w - p), 100 * (w - p) / p))


if __name__ == "__main__":
    torch.set_num_threads(1)
    bench("MLP", mlp)
    bench("CNN", cnn)
