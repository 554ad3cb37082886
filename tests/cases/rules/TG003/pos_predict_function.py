# predict(model, images) calls the model without any grad-disabling context (TG003 in a predict* function).
import torch
import torch.nn as nn


def predict(model, images):
    model.eval()
    probs = torch.softmax(model(images), dim=-1)
    return probs.argmax(dim=-1).tolist()


classifier = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10))
classifier.load_state_dict(torch.load("clf.pt"))
print(predict(classifier, torch.load("digits.pt")))
