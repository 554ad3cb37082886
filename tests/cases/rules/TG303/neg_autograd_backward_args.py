# torch.autograd.backward and distributed autograd take the tensors as arguments.
import torch
import torch.distributed.autograd as dist_autograd


def profile(layers, sample):
    for layer in layers:
        out = layer(sample)
        grads = tuple(y for y in out if y.requires_grad)
        torch.autograd.backward(grads, grads)


def train(ddp_net, inputs_list):
    for i, inputs in enumerate(inputs_list):
        with dist_autograd.context() as context_id:
            loss = ddp_net(inputs).norm()
            dist_autograd.backward(context_id, [loss])
