# pfc estimate: the script's configuration wherever it comes from (argparse,
# HfArgumentParser dataclasses, fire, YAML/JSON config files, the script's
# own arguments after --, --model NAME). Each case prints what was
# estimated (model, batch, seq, precision, checkpointing as the --json
# components imply), the configuration values read with where they came
# from, or the refusal.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# show SCRIPT [ARGS]: the exit status, then what --json says about the inputs
show() {
    echo "\$ pfc estimate $*"
    "$PFC" estimate --json "$@" > out.json 2> err.txt
    local rc=$?
    python3 -c "import json
j = json.load(open('out.json'))
if j.get('error'):
    e = j['error']
    print('  refused:', e.get('message', e) if isinstance(e, dict) else e)
else:
    print('  model %s, batch %s, seq %s, params %s' % (j['model'], j['batch'], j['seq'], j['params_total']))
    for a in j['assumptions']:
        if '=' in a or 'model name' in a or 'config file' in a or 'checkpointing' in a or 'autocast' in a:
            print('  read:', a)"
    echo "  exit $rc"
}

cat > ap.py <<'PY'
import argparse
import torch
from transformers import AutoModelForCausalLM
p = argparse.ArgumentParser()
p.add_argument("--model-name", dest="model", required=True)
p.add_argument("--batch_size", "-b", type=int, default=4)
p.add_argument("--seq-len", type=int, default="128")
p.add_argument("--bf16", action="store_true")
args, unknown = p.parse_known_args()
model = AutoModelForCausalLM.from_pretrained(args.model).cuda()
if args.bf16:
    model = model.to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters())
x = torch.randint(0, 100, (args.batch_size, args.seq_len)).cuda()
loss = model(input_ids=x, labels=x).loss
loss.backward()
opt.step()
PY
echo "--- 1. argparse: a required option without default is a refusal that names it"
show ap.py
echo "--- 2. ... given after --, with dest=, type=, -/_ spellings and --opt=value"
show ap.py -- --model-name gpt2 --batch-size 8 --seq_len=64
echo "--- 3. --model NAME for the name pfc cannot read; the defaults stay"
show --model gpt2 ap.py

cat > fire_train.py <<'PY'
import fire
import torch
from transformers import AutoModelForCausalLM
def train(model_name="gpt2", batch_size=2, seq=64):
    model = AutoModelForCausalLM.from_pretrained(model_name).cuda()
    opt = torch.optim.AdamW(model.parameters())
    x = torch.randint(0, 100, (batch_size, seq)).cuda()
    loss = model(input_ids=x, labels=x).loss
    loss.backward()
    opt.step()
if __name__ == "__main__":
    fire.Fire(train)
PY
echo "--- 4. fire.Fire(train): train's keyword defaults are the configuration"
show fire_train.py
echo "--- 5. ... and the script's arguments override them"
show fire_train.py -- --batch_size 8 --model_name=gpt2-medium

cat > hf_train.py <<'PY'
import sys
from dataclasses import dataclass, field
from typing import Optional
import torch
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments

@dataclass
class ModelArguments:
    model_name_or_path: Optional[str] = field(default="gpt2", metadata={"help": "the model"})

@dataclass
class DataArguments:
    data_path: str = field(default=None)
    max_len: int = 256

class Tokens(torch.utils.data.Dataset):
    def __init__(self, n):
        self.ids = torch.randint(0, 100, (64, n))
    def __len__(self):
        return 64
    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}

def train():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
    trainer = Trainer(model=model, args=training_args, train_dataset=Tokens(data_args.max_len))
    trainer.train()

if __name__ == "__main__":
    train()
PY
echo "--- 6. HfArgumentParser: the dataclasses' defaults (field(default=...), plain defaults)"
show hf_train.py
echo "--- 7. ... TrainingArguments from the command line flow into the Trainer"
show hf_train.py -- --model_name_or_path gpt2-medium --per_device_train_batch_size 2 --bf16 --gradient_checkpointing True --max_len 128
echo "--- 7b. the flags took effect: checkpointing lowers the activations, bf16 adds autocast copies"
"$PFC" estimate --json hf_train.py -- --per_device_train_batch_size 8 --max_len 1024 > plain.json
"$PFC" estimate --json hf_train.py -- --per_device_train_batch_size 8 --bf16 --gradient_checkpointing True --max_len 1024 > flags.json
python3 -c "import json
p, f = json.load(open('plain.json'))['breakdown'], json.load(open('flags.json'))['breakdown']
print('  activations lower:', f['activations'] < p['activations'] / 2)
print('  autocast copies:', p.get('autocast_cache', 0) == 0 and f.get('autocast_cache', 0) > 0)"
sed 's/parser.parse_args_into_dataclasses()/parser.parse_json_file(json_file="args.json")/' hf_train.py > hf_json.py
echo '{"model_name_or_path": "gpt2-medium", "per_device_train_batch_size": 3, "max_len": 64}' > args.json
echo "--- 8. HfArgumentParser.parse_json_file: the JSON file beside the script"
show hf_json.py
sed 's/default="gpt2", //' hf_train.py > hf_required.py
echo "--- 9. a model field left None: the refusal names the argument"
show hf_required.py

mkdir -p proj/configs
cat > proj/configs/train.yaml <<'YAML'
# a flat config with one nested level
model:
  name: gpt2-medium    # the model
train:
  batch_size: 3
  seq_len: 256
tags: [a, "b"]
YAML
cat > proj/yaml_train.py <<'PY'
import yaml
import torch
from transformers import AutoModelForCausalLM
with open("configs/train.yaml") as f:
    cfg = yaml.safe_load(f)
model = AutoModelForCausalLM.from_pretrained(cfg["model"]["name"]).cuda()
opt = torch.optim.AdamW(model.parameters())
x = torch.randint(0, 100, (cfg["train"]["batch_size"], cfg["train"]["seq_len"])).cuda()
loss = model(input_ids=x, labels=x).loss
loss.backward()
opt.step()
PY
echo "--- 10. yaml.safe_load of a file named in the script, relative to the script's directory"
show proj/yaml_train.py
cat > proj/cli_config.py <<'PY'
import argparse, json
import torch
from transformers import AutoModelForCausalLM
p = argparse.ArgumentParser()
p.add_argument("--config", default="configs/missing.json")
args = p.parse_args()
cfg = json.load(open(args.config))
model = AutoModelForCausalLM.from_pretrained(cfg["model"]).cuda()
opt = torch.optim.AdamW(model.parameters())
x = torch.randint(0, 100, (cfg["batch"], 32)).cuda()
loss = model(input_ids=x, labels=x).loss
loss.backward()
opt.step()
PY
echo '{"model": "gpt2", "batch": 5}' > proj/configs/run.json
echo "--- 11. a config file that cannot be read is a refusal naming it"
show proj/cli_config.py
echo "--- 12. the config file given on the command line after --"
show proj/cli_config.py -- --config configs/run.json
printf 'model:\n  name: gpt2\n   batch: 2\n' > proj/configs/train.yaml
echo "--- 13. a malformed YAML config: the refusal gives its line"
show proj/yaml_train.py
