# pfc estimate reads the functions a script hands to fire and jsonargparse
# (issue 12): fire.Fire(train) fills parameters by name or in order;
# jsonargparse's CLI(train) takes the parameters without a default as
# positionals and any as --name, reads --config FILE where it stands
# (later words win), and CLI([train, test]) chooses the function by its
# name; jsonargparse's ArgumentParser with ActionConfigFile. The model is
# Linear(width, hidden) + ReLU + Linear(hidden, width): 2*w*h + h + w
# parameters.
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
    print('  batch %s, params %s, weights %s' % (j['batch'], j['params_total'], j['components']['weights']))
    for a in j['assumptions']:
        if '=' in a or 'command' in a or 'config file' in a:
            print('  read:', a)"
    echo "  exit $rc"
}
body='    model = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, width)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(batch_size, width, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()'
cat > jcli.py <<PY
import torch
import torch.nn as nn
from jsonargparse import CLI

def train(hidden: int, width: int = 256, batch_size: int = 64):
$body

def test(width: int = 256):
    pass

if __name__ == "__main__":
    CLI([train, test])
PY
printf 'width: 128\nbatch_size: 8\n' > small.yaml
echo "--- 1. CLI([train, test]): train's required parameter is a positional the words must give"
show jcli.py
echo "--- 2. the command, then the positional: 2*256*512 + 512 + 256 = 262,912 parameters"
show jcli.py -- train 512
echo "--- 3. --config where it stands, a later --batch_size wins: width 128: 2*128*1024 + 1024 + 128 = 263,296"
show jcli.py -- train --config small.yaml 1024 --batch_size 4
sed 's/CLI(\[train, test\])/CLI(train)/' jcli.py > jcli_one.py
echo "--- 4. CLI(train): no command word: 2*128*512 + 512 + 128 = 131,712"
show jcli_one.py -- 512 --width 128
sed 's/from jsonargparse import CLI/import fire/; s/CLI(\[train, test\])/fire.Fire(train)/' jcli.py > fire_pos.py
echo "--- 5. fire fills the parameters in order: hidden 512, width 128: 131,712"
show fire_pos.py -- 512 128
echo "--- 6. ... those the words do not name: the same"
show fire_pos.py -- --width 128 512
echo "--- 7. a fire parameter without a default or a word"
show fire_pos.py

cat > jparser.py <<'PY'
import torch
import torch.nn as nn
from jsonargparse import ArgumentParser, ActionConfigFile
p = ArgumentParser()
p.add_argument("--config", action=ActionConfigFile)
p.add_argument("--width", type=int, default=256)
p.add_argument("--hidden", type=int, default=512)
p.add_argument("--batch_size", type=int, default=64)
args = p.parse_args()
model = nn.Sequential(nn.Linear(args.width, args.hidden), nn.ReLU(), nn.Linear(args.hidden, args.width)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(args.batch_size, args.width, device="cuda")
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
PY
echo "--- 8. ArgumentParser with ActionConfigFile: the defaults, 262,912"
show jparser.py
echo "--- 9. the file where --config stands: it beats the earlier --width 64 (width 128), not the later batch 2; hidden 64: 2*128*64 + 64 + 128 = 16,576"
show jparser.py -- --width 64 --hidden 64 --config small.yaml --batch_size 2
