# Names no torch API itself: the model (models.py) and the loader (data.py)
# come from the project, so the file is lowered and both findings hold.
from config import device
from data import build_loader
from models import Net

model = Net().to(device)
outputs = []
for x, y in build_loader(128):
    out = model(x.to(device))
    outputs.append(out)
