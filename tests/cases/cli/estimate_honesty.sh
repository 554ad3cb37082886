# pfc estimate never silently drops or guesses (issue 12): a module size it
# cannot read, a library layer it does not model, a script that never
# places anything on a GPU, a model handed to a call it does not model and
# a model class derived from a library class each end in a refusal that
# says where and what, or in an estimate whose assumption lines say what
# was taken. Each case prints the parameters (and what else it is about).
summary=$(pwd)/estimate_summary.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
show() {   # show TITLE SCRIPT [FIELDS...]
    local title=$1 script=$2; shift 2
    echo "--- $title"
    "$PFC" estimate "$script" --json > out.json 2> err.txt
    echo "exit $?"
    python3 "$summary" out.json "$@"
}
# step SETUP MODEL INPUT: one training step of MODEL on INPUT, all on the GPU
step() {
    cat <<PY
import torch
import torch.nn as nn
$1
model = $2.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = $3
loss = model(x).float().pow(2).mean()
loss.backward()
opt.step()
PY
}
feats='torch.randn(32, 256, device="cuda")'
image='torch.randn(8, 3, 32, 32, device="cuda")'

echo "=== 1. module sizes pfc cannot read are refused, with the argument's text"
step 'vocab = open("vocab.txt").read().split()' 'nn.Sequential(nn.Embedding(len(vocab), 256), nn.Linear(256, 10))' \
     'torch.randint(0, 100, (32, 64), device="cuda")' > embedding.py
show "nn.Embedding(len(vocab), 256), vocab read from a file" embedding.py line
step 'import pandas as pd
n_features = pd.read_csv("data.csv").shape[1] - 1' 'nn.Sequential(nn.Linear(n_features, 64), nn.ReLU(), nn.Linear(64, 10))' \
     "$feats" > linear.py
show "nn.Linear(n_features, 64), n_features from a CSV" linear.py line
step 'cfg = load_config()' 'nn.LSTM(256, 128, num_layers=cfg.layers)' 'torch.randn(16, 4, 256, device="cuda")' > lstm.py
show "nn.LSTM's num_layers from a config pfc cannot read" lstm.py
step 'cfg = load_config()' 'nn.Sequential(nn.LayerNorm(cfg.d), nn.Linear(256, 10))' "$feats" > norm.py
show "nn.LayerNorm(cfg.d)" norm.py
# Conv2d(3, 16, (1, 7)): 16 * 3 * 1 * 7 + 16 = 352 (not 1 x 1: 64, nor 7 x 7: 2368)
step '' 'nn.Conv2d(3, 16, (1, 7))' "$image" > kernel.py
show "a (1, 7) kernel is read per side: 352 parameters" kernel.py
# Conv2d(3, 16, 3, dilation=2): 16 * 3 * 9 + 16 = 448; dilation changes the output, not the weight
step '' 'nn.Conv2d(3, 16, 3, dilation=2)' "$image" > dilation.py
show "a dilated conv is modelled: 448 parameters" dilation.py

step 'cfg = load_config()
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(256, 1024)
        self.b = nn.Linear(1024, 10)
    def forward(self, x):
        h = self.a(x)
        return self.b(h.view(h.size(0), cfg.d))' 'Net()' "$feats" > view.py
show "a view pfc cannot read mid-forward loses the rest: refused, not estimated without it" view.py

echo "=== 2. sizes given as equal tuples are read; an unreadable bias is noted as its default"
# Conv2d(3, 16, (3, 3)): 3*16*9 + 16 = 448; LayerNorm([16]): 16 + 16 = 32;
# RNN(16, 32, num_layers=2): 32*(16 + 32) + 2*32 = 1600, then
# 32*(32 + 32) + 2*32 = 2112; Linear(32, 10) with its bias: 320 + 10 = 330.
# 448 + 32 + 1600 + 2112 + 330 = 4522
cat > tuples.py <<'PY'
import torch
import torch.nn as nn
cfg = load_config()
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))
        self.p = nn.MaxPool2d((2, 2))
        self.n = nn.LayerNorm([16])
        self.r = nn.RNN(16, 32, num_layers=2)
        self.o = nn.Linear(32, 10, bias=cfg.bias)
    def forward(self, x):
        h = self.p(self.c(x)).flatten(2).transpose(1, 2)
        h, _ = self.r(self.n(h))
        return self.o(h)
model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(8, 3, 32, 32, device="cuda")).sum()
loss.backward()
opt.step()
PY
show "4,522 parameters; the bias taken as True, noted" tuples.py assumptions

# pooled SIZE: a conv whose output F.adaptive_avg_pool2d brings to SIZE
pooled() {
    step 'import torch.nn.functional as F
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 64, 3, padding=1)
    def forward(self, x):
        return F.adaptive_avg_pool2d(self.c(x), '"$1"')' 'Net()' 'torch.randn(64, 3, 64, 64, device="cuda")'
}
pooled '(7, 7)' > pool_tuple.py
pooled 7 > pool_int.py
pooled 1 > pool_one.py
for f in pool_tuple pool_int pool_one; do "$PFC" estimate $f.py --json > $f.json; done
python3 -c "import json; p = {f: json.load(open(f + '.json'))['allocated_peak_bytes'] for f in ('pool_tuple', 'pool_int', 'pool_one')}
print('F.adaptive_avg_pool2d(x, (7, 7)) is 7 x 7, not 1 x 1:', p['pool_tuple'] == p['pool_int'] != p['pool_one'])"

# nn.Embedding.from_pretrained of a (50000, 300) table: 15,000,000
# parameters, frozen by default; Linear(300, 2): 602
for freeze in '' ', freeze=False'; do
    step "w = torch.randn(50000, 300)" "nn.Sequential(nn.Embedding.from_pretrained(w$freeze), nn.Linear(300, 2))" \
         'torch.randint(0, 50000, (32, 64), device="cuda")' > from_pretrained.py
    "$PFC" estimate from_pretrained.py --json > out.json
    python3 -c "import json; j = json.load(open('out.json'))
print('nn.Embedding.from_pretrained(w$freeze): params', j['params_total'], 'trainable', j['params_trainable'])"
done

echo "=== 3. torch.nn layers pfc does not model"
step '' 'nn.Sequential(nn.Conv2d(3, 8, 3), nn.PReLU())' "$image" > prelu.py
show "nn.PReLU has a parameter pfc cannot count: refused" prelu.py
# Conv2d(3, 8, 3): 3*8*9 + 8 = 224; Conv2d(8, 4, 3): 8*4*9 + 4 = 292; 516
step '' 'nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LocalResponseNorm(2), nn.Conv2d(8, 4, 3, padding=1))' \
     "$image" > lrn.py
show "nn.LocalResponseNorm has none: taken as elementwise, noted, the tensor kept (516 parameters)" lrn.py assumptions

echo "=== 4. a script that never places anything on a GPU trains on the CPU"
mlp='nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))'
# device_script DEVICE: the MLP and its batch moved with .to(DEVICE)
device_script() {
    cat <<PY
import torch
import torch.nn as nn
device = $1
model = $mlp.to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 784).to(device)
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
PY
}
cat > cpu.py <<PY
import torch
import torch.nn as nn
model = $mlp
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(100):
    x = torch.randn(64, 784)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
show "nothing moved: refused" cpu.py
device_script '"cpu"' > to_cpu.py
show ".to(\"cpu\"): refused" to_cpu.py
device_script '"mps" if torch.backends.mps.is_available() else "cpu"' > mps.py
show "MPS or the CPU, never CUDA: refused" mps.py
# 784*256 + 256 + 256*10 + 10 = 203530
device_script 'torch.device("cuda" if torch.cuda.is_available() else "cpu")' > cuda_if.py
show "torch.device(\"cuda\" if available else \"cpu\") is a GPU script: 203,530" cuda_if.py
device_script 'args.device' > unread_device.py
show "a device pfc cannot read may be the GPU: estimated" unread_device.py

echo "=== 5. a model handed to a call pfc does not model"
# wrapped NAME CALL: the MLP on a (8192, 784) batch, wrapped by CALL (a line)
wrapped() {
    cat <<PY
import torch
import torch.nn as nn
import some_lib
model = $mlp.cuda()
$1
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(8192, 784, device="cuda")
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
PY
}
wrapped '' > plain.py
wrapped 'model = some_lib.wrap(model)' > wrap.py
"$PFC" estimate plain.py --json > plain.json
show "some_lib.wrap(model): taken as returned unchanged, noted" wrap.py assumptions
python3 -c "import json; print('allocated peak as without the wrapper (activations kept):',
    json.load(open('out.json'))['allocated_peak_bytes'] == json.load(open('plain.json'))['allocated_peak_bytes'])"
wrapped 'opt0 = torch.optim.SGD(model.parameters(), lr=0.1)
model, opt0 = some_lib.setup(model, opt0)' > setup.py
show "model, opt = some_lib.setup(model, opt): given back in order" setup.py assumptions
wrapped 'model, extra = some_lib.wrap(model, lr=0.1)' > unpacked.py
show "a result pfc cannot take the model from: refused, naming the call" unpacked.py

cat > fabric.py <<PY
import torch
import torch.nn as nn
import lightning as L
fabric = L.Fabric(accelerator="cuda", precision="bf16-mixed")
fabric.launch()
model = $mlp
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
model, opt = fabric.setup(model, opt)
x = torch.randn(8192, 784, device=fabric.device)
loss = model(x).float().pow(2).mean()
fabric.backward(loss)
opt.step()
PY
show "Lightning's Fabric: setup() gives the model back, precision=\"bf16-mixed\" is autocast" fabric.py assumptions
python3 -c "import json; print('precision', json.load(open('out.json'))['inputs']['precision'])"

echo "=== 6. model classes derived from library classes"
step 'from some_lib import FancyModel
class M(FancyModel):
    def forward(self, x):
        return super().forward(x)' 'M()' "$feats" > fancy.py
show "a library base pfc does not model: refused (it recursed)" fancy.py
step 'class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(256, 10)
    def forward(self, x):
        return super().forward(x)' 'A()' "$feats" > module_forward.py
show "super().forward() into nn.Module: refused" module_forward.py
# CastedLinear(256, 512): 256*512 + 512 = 131584; Linear(512, 10): 5130; 136714
step 'import torch.nn.functional as F
class CastedLinear(nn.Linear):
    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype), self.bias)' 'nn.Sequential(CastedLinear(256, 512), nn.Linear(512, 10))' \
     "$feats" > casted.py
show "class CastedLinear(nn.Linear) with self.weight: 136,714" casted.py
# Block: Linear(256, 256) = 65792; Head(256, 10) = 2570; 68362
step 'class Block(nn.Sequential):
    def __init__(self, d):
        super().__init__(nn.Linear(d, d), nn.ReLU())
class Head(nn.Linear):
    pass' 'nn.Sequential(Block(256), Head(256, 10))' "$feats" > sequential.py
show "super().__init__ of nn.Sequential, a bare nn.Linear subclass: 68,362" sequential.py
# bert-base-uncased: 109,482,240 parameters (Hugging Face's total, with the pooler)
bert() {
    cat <<PY
import torch
from transformers import BertModel
$1
model = $2.from_pretrained("bert-base-uncased").cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
x = torch.randint(0, 1000, (8, 128), device="cuda")
loss = model(x).last_hidden_state.float().pow(2).mean()
loss.backward()
opt.step()
PY
}
bert '' BertModel > bert.py
bert 'class M(BertModel):
    def forward(self, input_ids):
        return super().forward(input_ids)' M > bert_sub.py
"$PFC" estimate bert.py --json > bert.json
show "class M(BertModel), M.from_pretrained, super().forward(): BERT's own" bert_sub.py
python3 -c "import json; print('allocated peak as BertModel.from_pretrained:',
    json.load(open('out.json'))['allocated_peak_bytes'] == json.load(open('bert.json'))['allocated_peak_bytes'])"
cat > bert_config.py <<'PY'
import torch
from transformers import BertModel, BertConfig
class M(BertModel):
    def __init__(self, config):
        super().__init__(config)
model = M(BertConfig()).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
x = torch.randint(0, 1000, (8, 128), device="cuda")
loss = model(x).last_hidden_state.float().pow(2).mean()
loss.backward()
opt.step()
PY
show "super().__init__(config) of a Hugging Face class: refused" bert_config.py
# A dataset, a sampler or a parser handed to a call pfc does not model is not
# the model: no note may say the model was passed through it.
cat > sampler.py <<'PY'
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
ds = TensorDataset(torch.randn(64, 32), torch.randint(0, 4, (64,)))
sampler = DistributedSampler(ds)
loader = DataLoader(ds, batch_size=8, sampler=sampler)
model = nn.Linear(32, 4).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
"$PFC" estimate sampler.py --json > sampler.json 2> sampler.err
echo "--- DistributedSampler(dataset): exit $?"
python3 -c "import json
j = json.load(open('sampler.json'))
notes = [a for a in j['assumptions'] if 'the model' in a and 'DistributedSampler' in a]
print('notes calling the dataset the model:', notes)"
