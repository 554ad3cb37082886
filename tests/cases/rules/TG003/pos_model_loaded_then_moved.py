# The model comes out of a checkpoint dict pfc cannot read; it is moved and
# put in eval mode at module level, and the evaluation helper runs it over
# the test set without no_grad. `.to()` returns its receiver, so the first
# binding is the module that eval() proves.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
checkpoint = torch.load("best.pth")
net = checkpoint["net"]
net = net.to(device)
net.eval()


def evaluate(loader):
    correct = 0
    for images, labels in loader:
        logits = net(images.to(device))
        correct += (logits.argmax(1) == labels.to(device)).sum().item()
    return correct


if __name__ == "__main__":
    print(evaluate(test_loader))
