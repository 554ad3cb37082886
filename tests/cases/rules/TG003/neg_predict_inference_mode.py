# predict() runs the model under torch.inference_mode() (not a finding).
import torch
import torch.nn as nn


def predict(model, images):
    model.eval()
    with torch.inference_mode():
        probs = torch.softmax(model(images), dim=-1)
    return probs.argmax(dim=-1).tolist()


classifier = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10))
print(predict(classifier, torch.load("digits.pt")))
