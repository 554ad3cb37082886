# TG002 with tab indentation and the step() inside nested blocks.
import torch


def train(model, loader, opt, accum):
	for i, (x, y) in enumerate(loader):
		loss = model(x).sum()
		loss.backward()
		if i % accum == 0:
			if True:
				opt.step()  # step


m = torch.nn.Linear(2, 2)
train(m, [], torch.optim.SGD(m.parameters(), lr=0.1), 2)
