"""The audit of the calibration scripts on a CPU: each script that needs only
PyTorch is copied to a temporary folder with its sizes shrunk and `.cuda()`
turned into `.to("cpu")` (one-line substitutions, so line numbers stay the
original's), run under `pfc audit --output-format concise`, and its findings
printed as Markdown (docs/audit.md). No copy is kept.

usage: python3 tests/tools/audit_calibration.py PFC CALIBRATION_SCRIPTS_DIR"""
import functools
import os
import re
import subprocess
import sys
import tempfile

# per script: (pattern, replacement) applied to the text; the sizes a CPU can run
SHRINK = {
    "cnn_vgg_w128_b512.py": [(r"^BATCH = 512$", "BATCH = 8"), (r"^W = 128$", "W = 16")],
    "lstm_lm_h1024_l4_b64_s512.py": [(r"^ntokens = 33278$", "ntokens = 1000"),
                                     (r"^emsize = 1024$", "emsize = 128"),
                                     (r"^nhid = 1024$", "nhid = 128"),
                                     (r"^bptt = 512$", "bptt = 16"),
                                     (r"^batch_size = 64$", "batch_size = 4")],
    "mlp_784_4096_b8192.py": [(r"^batch_size = 8192$", "batch_size = 64"), (r"4096", "512")],
    "mlp_wide_sgd_b16384.py": [(r"16384", "512")],
}
NANOGPT = [(r"^batch_size = \d+$", "batch_size = 2"), (r"^block_size = \d+$", "block_size = 32"),
           (r"n_layer=\d+, n_head=\d+, n_embd=\d+", "n_layer=2, n_head=2, n_embd=64")]
for _name in ("nanogpt_124m_flash_b12.py", "nanogpt_124m_manual_b12.py",
              "nanogpt_124m_manual_ctx2048_b8.py", "nanogpt_350m_flash_ctx512_b32.py",
              "nanogpt_774m_flash_b4.py", "nanogpt_char_b64.py"):
    SHRINK[_name] = NANOGPT
# the CPU: no CUDA device, no fused AdamW
GENERIC = [(r"\.cuda\(\)", '.to("cpu")'), (r'^device = "cuda"$', 'device = "cpu"'),
           (r'device_type="cuda"', 'device_type="cpu"'), (r", fused=True", "")]

# PyTorch older than 2.1 (Debian's 1.13) lacks two things nanoGPT uses; a
# sitecustomize beside the copy adds them without moving a line of the script.
COMPAT = """import math
import torch, torch.nn as nn, torch.nn.functional as F
if not hasattr(F, "scaled_dot_product_attention"):
    def _sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False):
        att = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if is_causal:
            T, S = q.size(-2), k.size(-2)
            att = att.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
        return F.dropout(att.softmax(-1), dropout_p) @ v
    F.scaled_dot_product_attention = _sdpa
class _LayerNorm(nn.LayerNorm):
    def __init__(self, shape, eps=1e-5, elementwise_affine=True, bias=True, **kw):
        super().__init__(shape, eps, elementwise_affine, **kw)
        if not bias:
            self.bias = None
nn.LayerNorm = _LayerNorm
"""


def why_not(text):
    """Why a script cannot run on this machine's CPU, or None."""
    for mod in ("transformers", "peft", "torchvision"):
        if re.search(r"^\s*(import|from) %s\b" % mod, text, re.M):
            return "needs `%s` (not installed here%s)" % (
                mod, "; Hugging Face models also need the hub" if mod != "torchvision" else "")
    return None


@functools.lru_cache(maxsize=None)
def _torch_version():
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                         capture_output=True, text=True).stdout.strip()
    return out or "none"


def _torch_older_than(major, minor):
    m = re.match(r"(\d+)\.(\d+)", _torch_version())
    return not m or (int(m.group(1)), int(m.group(2))) < (major, minor)


def shrink(name, text):
    for pat, rep in SHRINK.get(name, []) + GENERIC:
        text = re.sub(pat, rep, text, flags=re.M)
    return text


def audit(pfc, name, text, tmp):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(shrink(name, text))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if "nn.LayerNorm(" in text and _torch_older_than(2, 1):
        with open(os.path.join(tmp, "sitecustomize.py"), "w") as f:
            f.write(COMPAT)
        env["PYTHONPATH"] = tmp
    p = subprocess.run([pfc, "audit", "--output-format", "concise", name], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=900)
    os.unlink(path)
    if os.path.exists(os.path.join(tmp, "sitecustomize.py")):
        os.unlink(os.path.join(tmp, "sitecustomize.py"))
    crash = [l for l in p.stderr.splitlines() if l.startswith("pfc: error:")]
    return p.returncode, p.stdout.strip().splitlines(), crash


def main(pfc, scripts):
    pfc = os.path.abspath(pfc)
    names = sorted(n for n in os.listdir(scripts) if n.endswith(".py"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            with open(os.path.join(scripts, name)) as f:
                text = f.read()
            reason = why_not(text)
            if reason:
                print("- `%s`: not run: %s" % (name, reason))
                continue
            sizes = ", ".join("`%s` -> `%s`" % (a.strip("^$").replace("\\d+", "N"), b)
                              for a, b in SHRINK.get(name, []))
            status, lines, crash = audit(pfc, name, text, tmp)
            compat = " (1.13 compat: LayerNorm(bias=), scaled_dot_product_attention)" \
                if "nn.LayerNorm(" in text and _torch_older_than(2, 1) else ""
            print("- `%s` (exit %d; shrunk: %s%s):" % (name, status, sizes or "nothing", compat))
            for line in lines + crash:
                print("  - `%s`" % line)
            sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[-1])
    main(sys.argv[1], sys.argv[2])
