# pfc estimate on diffusers' UNets (issue 12): a UNet2DModel built from
# keyword arguments and a UNet2DConditionModel loaded with
# from_pretrained(NAME, subfolder="unet"). Per script the exact parameter
# total and recorded tensors whose shape and bytes are worked out by hand
# below, checked in the --trace listing; then the assumption lines for the
# parts of a pipeline pfc does not model, and the refusals. "ok: ..." when
# it holds, "WRONG: ..." with the numbers when not.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# check NAME PARAMS TENSOR...: params_total must be PARAMS and the trace must
# record each TENSOR ("dims" or "dims:fp16") saved
check() {
    "$PFC" estimate "$1.py" --json > "$1.json" 2> "$1.err"
    "$PFC" estimate "$1.py" --trace > "$1.trace" 2>&1
    python3 - "$@" <<'PY'
import json, sys
name, params, tensors = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
try:
    j = json.load(open(name + ".json"))
except ValueError:
    j = {"error": open(name + ".err").read().strip()[:200]}
trace = open(name + ".trace").read()
size = {"fp32": 4, "fp16": 2, "bf16": 2}
got = j.get("params_total")
print(("ok: " if got == params else "WRONG: ") + f"{name}: {got} parameters (expected {params})"
      + ("" if got == params else f", error {j.get('error')}"))
for t in tensors:
    dims, _, dt = t.partition(":")
    dt = dt or "fp32"
    numel = 1
    for d in dims.split(","):
        numel *= int(d)
    saved = "[" + dims + "]" + dt + " saved" in trace
    print(("ok: " if saved else "WRONG: ") + f"{name}: [{dims}] {dt} saved = {size[dt] * numel} bytes"
          + ("" if saved else " (not in the trace)"))
PY
}

echo "--- 1. UNet2DModel from keywords (train_unconditional.py's), batch 16 of 3 x 32 x 32, fp32"
cat > unconditional.py <<'PY'
import torch
import torch.nn.functional as F
from diffusers import UNet2DModel, DDPMScheduler

model = UNet2DModel(
    sample_size=32, in_channels=3, out_channels=3, layers_per_block=2,
    block_out_channels=(128, 128, 256, 256, 512, 512),
    down_block_types=("DownBlock2D", "DownBlock2D", "DownBlock2D", "DownBlock2D", "AttnDownBlock2D", "DownBlock2D"),
    up_block_types=("UpBlock2D", "AttnUpBlock2D", "UpBlock2D", "UpBlock2D", "UpBlock2D", "UpBlock2D"),
).cuda()
noise_scheduler = DDPMScheduler(num_train_timesteps=1000)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
model.train()
for step in range(100):
    clean = torch.randn(16, 3, 32, 32, device="cuda")
    noise = torch.randn_like(clean)
    timesteps = torch.randint(0, 1000, (16,), device="cuda")
    noisy = noise_scheduler.add_noise(clean, noise, timesteps)
    pred = model(noisy, timesteps, return_dict=False)[0]
    loss = F.mse_loss(pred, noise)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
PY
# Parameters (tests/unit/test_diffusers.c has the sum): 113,673,219.
# conv_in's output [16, 128, 32, 32], saved by the first ResNet's GroupNorm:
# 16*128*32*32*4 = 8,388,608 bytes. The fifth down block works on 32 / 16 = 2
# x 2 positions of 512 channels: its attentions' q, k, v projections read the
# transposed (16, 4, 512) view of the GroupNorm output and each saves its
# (16*4, 512) fold: [64, 512], 64*512*4 = 131,072 bytes. The first up block
# concatenates the mid block's 512 channels at 1 x 1 with the last skip's
# 512: [16, 1024, 1, 1], 65,536 bytes.
check unconditional 113673219 16,128,32,32 64,512 16,1024,1,1

echo "--- 2. UNet2DConditionModel.from_pretrained(SD 1.5, subfolder=\"unet\"), batch 2 of 4 x 64 x 64, fp16 autocast"
cat > sd15.py <<'PY'
import torch
import torch.nn.functional as F
from diffusers import DDPMScheduler, UNet2DConditionModel

name = "runwayml/stable-diffusion-v1-5"
noise_scheduler = DDPMScheduler.from_pretrained(name, subfolder="scheduler")
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet").cuda()
unet.train()
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
latents = torch.randn(2, 4, 64, 64, device="cuda")
encoder_hidden_states = torch.randn(2, 77, 768, device="cuda")
noise = torch.randn_like(latents)
timesteps = torch.randint(0, 1000, (2,), device="cuda")
noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
with torch.autocast("cuda", dtype=torch.float16):
    model_pred = unet(noisy_latents, timesteps, encoder_hidden_states).sample
loss = F.mse_loss(model_pred.float(), noise.float())
loss.backward()
optimizer.step()
PY
# Parameters: 859,520,964 (the published total). In the first
# transformer block (64 x 64 = 4096 tokens of 320): GEGLU's projection to
# 2 x 1280 saved in fp16 (the gate's GELU and the product read it):
# [2, 4096, 2560] 2*4096*2560*2 = 41,943,040 bytes; the cross-attention's
# k and v of the 77 text tokens: [2, 77, 320] fp16, 98,560 bytes each; the
# GroupNorm before the first ResNet's conv runs in fp32 under autocast: its
# output, which SiLU saves, [2, 320, 64, 64] fp32 = 10,485,760 bytes.
check sd15 859520964 2,4096,2560:fp16 2,77,320:fp16 2,320,64,64

echo "--- 3. a pipeline's VAE and text encoder: assumption lines, and the UNet's inputs from --batch"
cat > pipeline.py <<'PY'
import torch
import torch.nn.functional as F
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from transformers import CLIPTextModel, CLIPTokenizer

name = "stabilityai/stable-diffusion-2-1"
noise_scheduler = DDPMScheduler.from_pretrained(name, subfolder="scheduler")
tokenizer = CLIPTokenizer.from_pretrained(name, subfolder="tokenizer")
text_encoder = CLIPTextModel.from_pretrained(name, subfolder="text_encoder").cuda()
vae = AutoencoderKL.from_pretrained(name, subfolder="vae").cuda()
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet").cuda()
unet.train()
unet.enable_gradient_checkpointing()
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
for batch in loader:
    latents = vae.encode(batch["pixel_values"]).latent_dist.sample() * vae.config.scaling_factor
    noise = torch.randn_like(latents)
    timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],))
    noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
    encoder_hidden_states = text_encoder(batch["input_ids"], return_dict=False)[0]
    model_pred = unet(noisy_latents, timesteps, encoder_hidden_states, return_dict=False)[0]
    loss = F.mse_loss(model_pred.float(), noise.float())
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
PY
"$PFC" estimate pipeline.py > pipeline.out 2>&1
echo "exit $?: $(head -n 1 pipeline.out)"
"$PFC" estimate pipeline.py --batch 2 --json > pipeline.json
python3 - <<'PY'
import json
j = json.load(open("pipeline.json"))
print("params_total", j["params_total"])
for a in j.get("assumptions", []):
    text = a if isinstance(a, str) else a.get("text", a)
    if "pipeline" in str(text) or "could not be read" in str(text) or "not counted" in str(text):
        print("assumed:", text)
PY

echo "--- 4. refusals"
refuse() {
    printf 'import torch\nfrom diffusers import UNet2DConditionModel, UNet2DModel\n%s\nopt = torch.optim.AdamW(unet.parameters())\nx = torch.randn(2, 4, 64, 64, device="cuda")\nloss = unet(x, 1, torch.randn(2, 77, 768, device="cuda")).sample.mean()\nloss.backward()\n' "$2" > "$1.py"
    "$PFC" estimate "$1.py" 2>&1 | head -n 1
}
refuse no_subfolder 'unet = UNet2DConditionModel.from_pretrained("runwayml/stable-diffusion-v1-5").cuda()'
refuse wrong_class 'unet = UNet2DModel.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="unet").cuda()'
refuse unknown_block 'unet = UNet2DConditionModel(cross_attention_dim=768, down_block_types=("SimpleCrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D")).cuda()'
refuse groups 'unet = UNet2DConditionModel(cross_attention_dim=768, block_out_channels=(320, 640, 1280, 1000)).cuda()'
refuse side 'unet = UNet2DConditionModel(cross_attention_dim=768, block_out_channels=(64, 64, 64, 64, 64, 64, 64, 64), down_block_types=("DownBlock2D", "DownBlock2D", "DownBlock2D", "DownBlock2D", "DownBlock2D", "DownBlock2D", "DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D", "UpBlock2D", "UpBlock2D", "UpBlock2D", "UpBlock2D", "UpBlock2D", "UpBlock2D"), mid_block_type=None).cuda()'
