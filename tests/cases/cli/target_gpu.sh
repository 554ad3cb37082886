# TG901 projected-oom: pfc lint with target_gpu in [tool.pfc] (or --target-gpu)
# runs the estimator on files holding a training loop: a full bf16 AdamW
# fine-tune of a 7B model on an A100 80GB is an error at the loop, with the
# changes that fit in its help; a LoRA run fits; no target, no finding; an
# unknown GPU is a configuration error; guesses that could inflate the
# estimate (a sharded run of unknown world size, torch.compile) keep it quiet.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
run() {   # run ARGS...: pfc's output (temporary paths cut) and exit status
    "$PFC" "$@" > out 2>&1; status=$?
    sed "s|$tmp/||" out; echo "status $status"
}
mkdir big fits none badgpu sharded compiled
cat > big/train.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16).cuda()
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
for step in range(100):
    ids = torch.randint(0, 32000, (4, 2048), device="cuda")
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
printf 'import torch\n\ndef helper():\n    return 1\n' > big/util.py
sed 's|meta-llama/Llama-2-7b-hf|no/such-model|' big/train.py > big/unknown_model.py
printf '[tool.pfc]\ntarget_gpu = "a100-80gb"\n' > big/pyproject.toml
cat > fits/train.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model.gradient_checkpointing_enable()
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
model.cuda().train()
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
for step in range(100):
    ids = torch.randint(0, 32000, (4, 1024), device="cuda")
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
cp big/pyproject.toml fits/
cp big/train.py none/train.py
printf '[tool.pfc]\nselect = ["TG"]\n' > none/pyproject.toml
cp big/train.py badgpu/train.py
printf '[tool.pfc]\ntarget_gpu = "a100-80"\n' > badgpu/pyproject.toml
sed -e 's/^model = \(.*\)\.cuda()$/model = FSDP(\1.cuda())/' \
    -e 's/^from transformers/from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\nfrom transformers/' \
    big/train.py > sharded/train.py
cp big/pyproject.toml sharded/
sed -e 's/^model.train()$/model.train()\nmodel = torch.compile(model)/' big/train.py > compiled/train.py
cp big/pyproject.toml compiled/
echo "--- does not fit: TG901 at the loop, the changes that fit in its help;"
echo "    a module without a loop and a model pfc cannot read: nothing"
run lint --no-cache big
echo "--- concise and json"
run lint --no-cache --output-format concise big
"$PFC" lint --no-cache --output-format json big | grep -o '"code": "TG901"\|"help": "what would make it fit[^;]*'
echo "--- fits: nothing"
run lint --no-cache fits
echo "--- no target_gpu: nothing"
run lint --no-cache none
echo "--- --target-gpu on the command line, and one that holds it"
run lint --no-cache --output-format concise --target-gpu h100 none
run lint --no-cache --output-format concise --target-gpu h200 big
echo "--- an instance: its GPU"
run lint --no-cache --output-format concise --target-gpu p4de.24xlarge none
echo "--- TG901 not selected, or a noqa on the loop: nothing"
run lint --no-cache --select TG001 big
sed 's/^for step in range(100):$/for step in range(100):  # noqa: TG901/' big/train.py > big/quiet.py
run lint --no-cache big/quiet.py
echo "--- unknown GPU: configuration error"
run lint --no-cache badgpu
run lint --no-cache --target-gpu a100-80 none
run lint --no-cache --target-gpu
echo "--- sharded with the world size unknown: quiet; target-world-size gives it (8 fit, 1 does not)"
run lint --no-cache sharded
printf '[tool.pfc]\ntarget_gpu = "a100-80gb"\ntarget-world-size = 8\n' > sharded/pyproject.toml
run lint --no-cache --output-format concise sharded
printf '[tool.pfc]\ntarget_gpu = "a100-80gb"\ntarget_world_size = 1\n' > sharded/pyproject.toml
run lint --no-cache --output-format concise sharded
printf '[tool.pfc]\ntarget_gpu = "a100-80gb"\ntarget-world-size = "8"\n' > sharded/pyproject.toml
run lint --no-cache sharded
echo "--- torch.compile: estimated as eager, a guess that may be too high: quiet"
run lint --no-cache compiled
