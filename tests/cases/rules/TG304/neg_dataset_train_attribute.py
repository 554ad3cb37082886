# `dataset.train` is a torchvision dataset flag, not nn.Module.train (not a finding).
import torchvision
import torchvision.transforms as T

dataset = torchvision.datasets.MNIST("data", train=True, download=True, transform=T.ToTensor())
dataset.train
split = "train" if dataset.train else "test"
print(split, len(dataset))
