# pfc estimate follows Lightning (issue 12): trainer.fit(model, loader |
# datamodule=) runs one step as Lightning's automatic optimization does
# (the datamodule's setup("fit") and train_dataloader(), the model's
# configure_optimizers(), training_step(batch, 0) under the Trainer's
# precision, accumulate_grad_batches), and LightningCLI(Model, Data) builds
# them from the command line as jsonargparse maps it: `--model.X` and a
# config file's `model:` (or `model: init_args:`) are Model.__init__'s
# arguments, `--data.X` the datamodule's, `--trainer.X` the Trainer's.
# The model is Linear(256, h) + ReLU + Linear(h, 256): 512*h + h + 256
# parameters; AdamW keeps two copies of them.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
show() {
    echo "\$ pfc estimate $*"
    "$PFC" estimate --json "$@" > out.json 2> err.txt
    local rc=$?
    python3 -c "import json
j = json.load(open('out.json'))
if j.get('error'):
    print('  refused:', j['error']['message'])
else:
    c, i = j['components'], j['inputs']
    print('  model %s, batch %s, params %s, optimizer %s, precision %s, accumulation %s' % (
        j['model'], j['batch'], j['params_total'], i['optimizer'], i['precision'], i['gradient_accumulation']))
    print('  weights %s, gradients %s, optimizer state %s' % (c['weights'], c['gradients'], c['optimizer_state']))
    for a in j['assumptions']:
        if '=' in a or 'command' in a or 'config file' in a:
            print('  read:', a)"
    echo "  exit $rc"
}
mkdir -p proj/models
cat > proj/models/__init__.py <<'PY'
PY
cat > proj/models/lit.py <<'PY'
import torch
import torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, Dataset


class Random(Dataset):
    def __init__(self, width):
        self.width = width

    def __len__(self):
        return 1000

    def __getitem__(self, i):
        return torch.randn(self.width)


class Lit(L.LightningModule):
    def __init__(self, width: int = 256, hidden: int = 512, lr: float = 1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, width))

    def training_step(self, batch, batch_idx):
        loss = self.net(batch).pow(2).mean()
        self.log("train_loss", loss)
        return {"loss": loss}

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.StepLR(opt, 10)}


class Data(L.LightningDataModule):
    def __init__(self, width: int = 256, batch_size: int = 64):
        super().__init__()
        self.width = width
        self.batch_size = batch_size

    def setup(self, stage):
        self.train_ds = Random(self.width)

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=self.batch_size)
PY
cat > proj/fit.py <<'PY'
import lightning as L
from torch.utils.data import DataLoader
from models.lit import Lit, Data, Random

model = Lit(hidden=1024)
trainer = L.Trainer(max_epochs=1, precision="bf16-true", accumulate_grad_batches=4)
trainer.fit(model, DataLoader(Random(256), batch_size=16))
PY
echo "--- 1. trainer.fit(model, loader): the model and its optimizer in another module; bf16-true weights"
echo "    h 1024: 512*1024 + 1024 + 256 = 525,568 params, bf16 1,051,136 bytes, AdamW 2,102,272"
show proj/fit.py
cat > proj/cli.py <<'PY'
from lightning.pytorch.cli import LightningCLI
from models.lit import Lit, Data

def cli_main():
    LightningCLI(Lit, Data, trainer_defaults={"precision": "bf16-mixed"})

if __name__ == "__main__":
    cli_main()
PY
echo "--- 2. LightningCLI: no sub-command ('fit' assumed, said so), the classes' defaults:"
echo "    h 512: 262,912 params, 1,051,648 bytes, AdamW 2,103,296; trainer_defaults' bf16 autocast"
show proj/cli.py
echo "--- 3. --model.X / --data.X: h 64: 512*64 + 64 + 256 = 33,088 params"
show proj/cli.py -- fit --model.hidden 64 --data.batch_size 4
cat > proj/cfg.yaml <<'YAML'
model:
  class_path: models.lit.Lit
  init_args:
    hidden: 1024
data:
  batch_size: 8
trainer:
  precision: bf16-true
  accumulate_grad_batches: 2
YAML
echo "--- 4. fit --config: init_args, the Trainer's precision and accumulation: 525,568 params in bf16"
show proj/cli.py -- fit --config cfg.yaml
echo "--- 5. a later word beats the file: h 128: 512*128 + 128 + 256 = 65,920 params"
show proj/cli.py -- fit --config cfg.yaml --model.init_args.hidden 128
printf 'fit:\n  model:\n    hidden: 2048\n' > proj/all.yaml
echo "--- 6. a --config before the command gives its fit: section: h 2048: 512*2048 + 2048 + 256 = 1,050,880"
show proj/cli.py -- --config all.yaml fit
echo "--- 7. a sub-command that trains nothing"
show proj/cli.py -- test
echo "--- 8. an option's value before the command is not the command: batch 2, 262,912 params"
show proj/cli.py -- --data.batch_size 2 fit
echo "--- 9. a word that is no sub-command"
show proj/cli.py -- train
