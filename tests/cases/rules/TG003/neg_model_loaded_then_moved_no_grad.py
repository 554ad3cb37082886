# As pos_model_loaded_then_moved, with the helper under no_grad.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
checkpoint = torch.load("best.pth")
net = checkpoint["net"]
net = net.to(device)
net.eval()


@torch.no_grad()
def evaluate(loader):
    correct = 0
    for images, labels in loader:
        logits = net(images.to(device))
        correct += (logits.argmax(1) == labels.to(device)).sum().item()
    return correct


if __name__ == "__main__":
    print(evaluate(test_loader))
