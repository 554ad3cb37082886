# pfc estimate on the torchvision families issue 12 listed as unknown (and
# timm.create_model): per family the exact parameter total (the published
# num_params) and one recorded activation whose shape and bytes are worked
# out by hand below, checked in the --trace listing. "ok: ..." when both
# hold, "WRONG: ..." with the numbers when not.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# script CTOR IMAGE: a training step of batch 8 on IMAGE x IMAGE images
script() {
    cat <<PY
import torch
import torchvision
import timm
model = $1.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model.train()
x = torch.randn(8, 3, $2, $2, device="cuda")
y = torch.randint(0, 10, (8,), device="cuda")
out = model(x)
loss = torch.nn.functional.cross_entropy(out if torch.is_tensor(out) else out[0], y)
loss.backward()
opt.step()
PY
}

# family NAME CTOR IMAGE PARAMS TENSOR: the JSON's params_total must be
# PARAMS and the trace must record a saved fp32 tensor of shape TENSOR
family() {
    script "$2" "$3" > "$1.py"
    "$PFC" estimate "$1.py" --json > "$1.json" 2> "$1.err"
    "$PFC" estimate "$1.py" --trace > "$1.trace" 2>&1
    python3 - "$1" "$4" "$5" <<'PY'
import json, sys
name, params, tensor = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    j = json.load(open(name + ".json"))
except ValueError:
    j = {"error": open(name + ".err").read().strip()[:200]}
trace = open(name + ".trace").read()
numel = 1
for d in tensor.split(","):
    numel *= int(d)
got = j.get("params_total")
saved = "[" + tensor + "]fp32 saved" in trace
if got == params and saved:
    print(f"ok: {name}: {params} parameters; [{tensor}] fp32 saved = {4 * numel} bytes")
else:
    print(f"WRONG: {name}: params_total {got} (expected {params}), [{tensor}] saved: {saved}, "
          f"error {j.get('error')}")
PY
}

# squeezenet1_1, 10 classes: 1,235,496 - 513 x 990 = 727,626 parameters.
# conv1 3x3 stride 2: (224 - 3) / 2 + 1 = 111; MaxPool2d(3, 2, ceil_mode)
# ceil((111 - 3) / 2) + 1 = 55; Fire 2, 3 at 55 concatenate 64 + 64; the
# second pool ceil((55 - 3) / 2) + 1 = 27 (floor would give 26): its output
# [8, 128, 27, 27], which the next squeeze conv saves: 8*128*27*27*4 = 2,985,984 bytes.
family squeezenet "torchvision.models.squeezenet1_1(num_classes=10)" 224 727626 8,128,27,27

# shufflenet_v2_x1_0, 10 classes: 2,278,604 - 1025 x 990 = 1,263,854.
# conv1 stride 2: 112, max pool: 56, stage 2's first unit (stride 2): two
# branches of 116 / 2 = 58 channels at 28, concatenated and channel-shuffled
# (transpose(1, 2).contiguous(): a copy) to [8, 116, 28, 28], saved by the
# next unit's 1x1 conv: 8*116*28*28*4 = 2,910,208 bytes.
family shufflenet "torchvision.models.shufflenet_v2_x1_0(num_classes=10)" 224 1263854 8,116,28,28

# mnasnet1_0, 10 classes: 4,383,312 - 1281 x 990 = 3,115,122.
# Stride 32 in all: the last 1x1 conv to 1280 channels at 7 x 7 is saved
# by its BatchNorm: 8*1280*7*7*4 = 2,007,040 bytes.
family mnasnet "torchvision.models.mnasnet1_0(num_classes=10)" 224 3115122 8,1280,7,7

# googlenet (aux_logits=False), 10 classes: 6,624,904 - 1025 x 990 = 5,610,154.
# conv1 stride 2: 112; ceil-mode pools: ceil(109 / 2) + 1 = 56, then 28;
# inception 3a: 64 + 128 + 32 + 32 = 256 channels at 28, concatenated and
# saved by 3b's convs: 8*256*28*28*4 = 6,422,528 bytes.
family googlenet "torchvision.models.googlenet(aux_logits=False, num_classes=10)" 224 5610154 8,256,28,28

# inception_v3 at 299, 10 classes: main fc 2049 x 10 and aux fc 769 x 10
# replace 2049 x 1000 and 769 x 1000: 27,161,264 - 2818 x 990 = 24,371,444.
# 299 -> 149 -> 147 -> 147 -> pool 73 -> 73 -> 71 -> pool 35; Mixed_5b
# concatenates 64 + 64 + 96 + 32 = 256 channels: 8*256*35*35*4 = 10,035,200 bytes.
family inception "torchvision.models.inception_v3(num_classes=10)" 299 24371444 8,256,35,35

# swin_t, 10 classes: 28,288,354 - 769 x 990 = 27,527,044.
# Patch embedding stride 4: 56 x 56 x 96; 7 x 7 windows: (56/7)^2 = 64 per
# image, 512 in the batch, 49 tokens; the softmax of the 3-head scores is
# [512, 3, 49, 49], saved for attn @ v: 512*3*49*49*4 = 14,751,744 bytes.
family swin_t "torchvision.models.swin_t(num_classes=10)" 224 27527044 512,3,49,49

# swin_v2_t, 10 classes: 28,351,570 - 769 x 990 = 27,590,260.
# 8 x 8 windows: (56/8)^2 = 49 per image, 392 in the batch, 64 tokens:
# scores [392, 3, 64, 64] saved by the softmax: 392*3*64*64*4 = 19,267,584 bytes.
family swin_v2_t "torchvision.models.swin_v2_t(num_classes=10)" 224 27590260 392,3,64,64

# maxvit_t, 10 classes: the classifier's last linear has no bias, so
# 30,919,624 - 512 x 990 = 30,412,744. Stem stride 2: 112; the first block's
# MBConv downsamples to 56 x 56 x 64; its window attention takes (56/7)^2 =
# 64 windows of 49 tokens and 64 / 32 = 2 heads: the softmax of the scores is
# [8, 64, 2, 49, 49], saved for the einsum with v: 8*64*2*49*49*4 = 9,834,496 bytes.
family maxvit_t "torchvision.models.maxvit_t(num_classes=10)" 224 30412744 8,64,2,49,49

# timm vit_small_patch16_224, 10 classes: 22,050,664 - 385 x 990 = 21,669,514.
# 196 patches + the class token = 197 tokens of 384; the in-projection
# saves the (S*N, E) fold of each block's normed input: [1576, 384],
# 197*8*384*4 = 2,420,736 bytes.
family timm_vit "timm.create_model('vit_small_patch16_224', pretrained=True, num_classes=10)" 224 21669514 1576,384

# refused NAME CTOR IMAGE TEXT: pfc must refuse the script and say TEXT
refused() {
    script "$2" "$3" > "$1.py"
    "$PFC" estimate "$1.py" > "$1.out" 2>&1
    if grep -qF "$4" "$1.out"; then
        echo "ok: $1 refused: $4"
    else
        echo "WRONG: $1: $(head -c 300 "$1.out")"
    fi
}

# maxvit_t is built for 224 x 224 images (input_size): at 448 the stem gives
# 224, not the 112 its partition grids were computed from, and torchvision
# fails; pfc refuses and names the constraint.
refused maxvit_448 "torchvision.models.maxvit_t()" 448 \
    "does not take 448 x 448 images: maxvit_t is built for 224 x 224 images"

# maxvit_t(input_size=(448, 448)) builds other grids (torchvision raises if
# the weights are given too): pfc models the default only and says so.
refused maxvit_input_size "torchvision.models.maxvit_t(input_size=(448, 448))" 448 \
    "maxvit_t's input_size is not (224, 224)"
