# pfc estimate reads argparse as argparse does (issue 12): positionals
# (nargs, filled in order from the words after --), options with nargs,
# BooleanOptionalAction, count, short flags run together, parents=,
# argument groups, set_defaults, parse_args(list), and sub-commands with
# set_defaults(func=...) dispatch; a positional the words do not give is a
# refusal that names it and says how to pass it; an empty model name says
# so. The in-file model is Linear(d, h) + ReLU + Linear(h, d): 2*d*h
# parameters, plus h + d with bias.
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
    print('  model %s, batch %s, params %s, weights %s' % (j['model'], j['batch'], j['params_total'], j['components']['weights']))
    for a in j['assumptions']:
        if '=' in a or 'sub-command' in a or 'model name' in a or 'list the script' in a:
            print('  read:', a)"
    echo "  exit $rc"
}
# mlp D H BIAS BATCH: the model and one SGD step on a (BATCH, D) batch
mlp() {
    cat <<PY
    model = nn.Sequential(nn.Linear($1, $2, bias=$3), nn.ReLU(), nn.Linear($2, $1, bias=$3)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn($4, $1, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
PY
}

cat > positional.py <<PY
import argparse
import torch
import torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("hidden", type=int)
p.add_argument("extra", nargs="*")
p.add_argument("--dims", type=int, nargs=2, default=[64, 256])
p.add_argument("--bias", action=argparse.BooleanOptionalAction, default=True)
p.add_argument("-v", "--verbose", action="count", default=0)
p.add_argument("-q", "--quiet", action="store_true")
args = p.parse_args()
if True:
$(mlp args.dims[1] args.hidden args.bias args.dims[0])
PY
echo "--- 1. a positional the words do not give: the refusal names it and how to pass it"
show positional.py
echo "--- 2. given: d 256, h 512, bias: 2*256*512 + 512 + 256 = 262,912 parameters, 1,051,648 bytes"
show positional.py -- 512
echo "--- 3. nargs=2, --no-bias, -vq run together, a '*' positional after: d 128, h 1024: 2*128*1024 = 262,144"
show positional.py -- --dims 8 128 --no-bias -vq 1024 a b

cat > groups.py <<PY
import argparse
import torch
import torch.nn as nn
base = argparse.ArgumentParser(add_help=False)
base.add_argument("--width", type=int, default=256)
p = argparse.ArgumentParser(parents=[base])
g = p.add_argument_group("model")
g.add_argument("--hidden", type=int, default=512)
p.set_defaults(hidden=1024)
args = p.parse_args()
if True:
$(mlp args.width args.hidden True 64)
PY
echo "--- 4. parents= and an argument group; set_defaults beats default=: 2*256*1024 + 1024 + 256 = 525,568"
show groups.py
echo "--- 5. ... the words beat both, an abbreviated --hid: 2*256*64 + 64 + 256 = 33,088"
show groups.py -- --hid 64
sed 's/args = p.parse_args()/args = p.parse_args(["--hidden", "128"])/' groups.py > own_list.py
echo "--- 6. parse_args(list): the script's own words, not the command line: 2*256*128 + 128 + 256 = 65,920"
show own_list.py -- --hidden 4096

cat > subcommands.py <<PY
import argparse
import torch
import torch.nn as nn

def train(args):
$(mlp args.width args.hidden True args.batch_size)

def evaluate(args):
    pass

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=256)
    sub = parser.add_subparsers(dest="command")
    t = sub.add_parser("train", aliases=["fit"])
    t.add_argument("hidden", type=int)
    t.add_argument("-b", "--batch-size", type=int, default=64)
    t.set_defaults(func=train)
    e = sub.add_parser("evaluate")
    e.set_defaults(func=evaluate)
    args = parser.parse_args()
    args.func(args)

if __name__ == "__main__":
    main()
PY
echo "--- 7. sub-commands: none given, 'train' assumed; its positional is missing"
show subcommands.py
sed 's/t.add_argument("hidden", type=int)/t.add_argument("--hidden", type=int, default=512)/' subcommands.py > sub_default.py
echo "--- 7b. none given, 'train' assumed, said so: 2*256*512 + 512 + 256 = 262,912"
show sub_default.py
echo "--- 8. the parser's option before the command, the command's after: 2*128*1024 + 1024 + 128 = 263,296"
show subcommands.py -- --width 128 train -b 16 1024
echo "--- 9. an alias of the command: 2*256*512 + 512 + 256 = 262,912"
show subcommands.py -- fit 512

cat > hf_names.py <<'PY'
import argparse
import torch
from transformers import AutoModelForCausalLM
p = argparse.ArgumentParser()
p.add_argument("model_name_or_path")
p.add_argument("--tokenizer", type=str, default="gpt2")
p.add_argument("--fp16", dest="fp16", action="store_true")
p.add_argument("--no-fp16", dest="fp16", action="store_false")
args = p.parse_args()
model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path).cuda()
if args.fp16:
    model = model.half()
opt = torch.optim.AdamW(model.parameters())
x = torch.randint(0, 100, (2, 64)).cuda()
loss = model(input_ids=x, labels=x).loss
loss.backward()
opt.step()
PY
echo "--- 10. a positional model name: the refusal says how to give it"
show hf_names.py
echo "--- 11. given after --; --fp16 and --no-fp16 share a dest: gpt2-medium 354,823,168 params, fp16 709,646,336 bytes"
show hf_names.py -- gpt2-medium --fp16
sed 's/p.add_argument("model_name_or_path")/p.add_argument("--model_name_or_path", type=str, default="")/' hf_names.py > empty_name.py
echo "--- 12. an empty default model name is said to be empty, with how to give one"
show empty_name.py
echo "--- 13. ... and an empty one on the command line"
show empty_name.py -- --model_name_or_path=
echo "--- 14. --model NAME stands in for the empty name"
show --model gpt2 empty_name.py
cat > hf_empty.py <<'PY'
from dataclasses import dataclass, field
import torch
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments

@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="")

class Tokens(torch.utils.data.Dataset):
    def __len__(self):
        return 64
    def __getitem__(self, i):
        ids = torch.randint(0, 100, (64,))
        return {"input_ids": ids, "labels": ids}

model_args, training_args = HfArgumentParser((ModelArguments, TrainingArguments)).parse_args_into_dataclasses()
model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
Trainer(model=model, args=training_args, train_dataset=Tokens()).train()
PY
echo "--- 15. an HfArgumentParser dataclass's empty default"
show hf_empty.py
cat > ds_args.py <<'PY'
import argparse
import deepspeed
import torch
import torch.nn as nn
parser = argparse.ArgumentParser()
parser.add_argument("--width", type=int, default=512)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()
model = nn.Linear(args.width, args.width).cuda()
if args.deepspeed:
    raise SystemExit("not in this run")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(8, args.width, device="cuda")).sum().backward()
opt.step()
PY
echo "--- 16. deepspeed.add_config_arguments gives the parser back, with --deepspeed off"
show ds_args.py -- --width 1024
