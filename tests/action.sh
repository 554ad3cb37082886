#!/usr/bin/env bash
# action.yml, the composite GitHub Action. Its properties: composite, every
# `run` step has an explicit shell, no `${{ }}` inside any run script (inputs
# reach the shell through env: only), every input is used. Then its run
# steps are executed as the runner would (bash --noprofile --norc -eo
# pipefail, the step's env with the expressions resolved, GITHUB_OUTPUT):
# the dependency step (nothing missing here), the build step as a dry run
# (make -n: this suite must not rebuild pfc), and the lint step in both
# formats, with fail-on, and with inputs that would run commands if they were
# interpolated. YAML is read with python3-yaml; without it, a grep checks the
# properties and the steps are not run (counted as skipped).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PFC=${PFC:-$ROOT/build/pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
ACTION=$ROOT/action.yml
passed=0 failed=0 skipped=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
finish() {
    if [ "$skipped" -gt 0 ]; then
        echo "action: $passed passed, $failed failed, $skipped skipped"
    else
        echo "action: $passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ]
    exit
}
[ -f "$ACTION" ] || { fail "action.yml" "missing"; finish; }

if ! python3 -c 'import yaml' 2> /dev/null; then
    # every "run:" has a "shell:" in its step, and no expression follows a run:
    runs=$(grep -c '^ *\(- \)\?run:' "$ACTION")
    shells=$(grep -c '^ *\(- \)\?shell:' "$ACTION")
    [ "$runs" -gt 0 ] && [ "$runs" -eq "$shells" ] && ok "every run step has a shell (grep)" ||
        fail "every run step has a shell (grep)" "$runs run, $shells shell"
    awk '/^ *(- )?run:/ { inrun = 1; ind = index($0, "run:"); if ($0 ~ /\$\{\{/) bad = 1; next }
         inrun && match($0, /^ */) && RLENGTH < ind && $0 !~ /^ *$/ { inrun = 0 }
         inrun && /\$\{\{/ { bad = 1 } END { exit bad }' "$ACTION" &&
        ok "no expression inside a run script (grep)" ||
        fail "no expression inside a run script (grep)" "found \${{ in a run script"
    skipped=5
    finish
fi

# the steps, one directory each: run (the script), env (NAME=VALUE, NUL-separated)
python3 - "$ACTION" "$tmp/steps" > "$tmp/props" <<'PY'
import os, re, sys, yaml
action = yaml.safe_load(open(sys.argv[1]))
out = sys.argv[2]
problems = []
runs = action.get("runs", {})
if runs.get("using") != "composite":
    problems.append("runs.using is not composite")
inputs = action.get("inputs", {}) or {}
used = set()
for i, step in enumerate(runs.get("steps", [])):
    if "run" not in step:
        continue
    name = step.get("name", f"step {i}")
    if step.get("shell") != "bash":
        problems.append(f"{name}: shell is {step.get('shell')!r}, not bash")
    if "${{" in step["run"]:
        problems.append(f"{name}: an expression inside the run script")
    d = os.path.join(out, f"{i:02d}")
    os.makedirs(d)
    with open(os.path.join(d, "run"), "w") as f:
        f.write(step["run"])
    with open(os.path.join(d, "env"), "w") as f:
        for k, v in (step.get("env") or {}).items():
            used.update(re.findall(r"inputs\.([A-Za-z0-9_-]+)", str(v)))
            f.write(f"{k}={v}\0")
    with open(os.path.join(d, "name"), "w") as f:
        f.write(name)
for k in inputs:
    if k not in used:
        problems.append(f"input {k} reaches no step's env")
for k in used - set(inputs):
    problems.append(f"env uses an undeclared input {k}")
print("\n".join(problems) if problems else "ok")
PY
if [ "$(cat "$tmp/props")" = ok ]; then
    ok "composite; every run step has shell: bash; no \${{ }} in run scripts; every input used"
else
    fail "action properties" "$(tr '\n' ';' < "$tmp/props")"
fi
nsteps=$(ls "$tmp/steps" 2> /dev/null | wc -l)
[ "$nsteps" -eq 3 ] && ok "three run steps (dependencies, build, lint)" || fail "run steps" "$nsteps"

# The action's own folder, as the runner checks it out: this tree, with the
# pfc under test as its build (the build step runs as a dry run).
act=$tmp/action
mkdir -p "$act/build"
for e in "$ROOT"/*; do
    [ "$(basename "$e")" = build ] || ln -s "$e" "$act/$(basename "$e")"
done
ln -s "$PFC" "$act/build/pfc"

# run_step DIR [input=value...]: runs the step in $tmp/work; output in
# $tmp/out, status in $status
run_step() {
    local dir=$1; shift
    declare -A in=([paths]=. [format]=github [sarif-file]=pfc.sarif [fail-on]=warning)
    for kv in "$@"; do in[${kv%%=*}]=${kv#*=}; done
    local envs=(PATH="${STEP_PATH:-$PATH}" HOME="$tmp/home" GITHUB_ACTION_PATH="$act"
                GITHUB_OUTPUT="$tmp/github_output" GITHUB_WORKSPACE="$tmp/work")
    while IFS= read -r -d '' kv; do
        local name=${kv%%=*} value=${kv#*=}
        value=${value//'${{ github.action_path }}'/$act}
        for k in "${!in[@]}"; do value=${value//"\${{ inputs.$k }}"/${in[$k]}}; done
        envs+=("$name=$value")
    done < "$dir/env"
    : > "$tmp/github_output"
    (cd "$tmp/work" && env -i "${envs[@]}" bash --noprofile --norc -eo pipefail "$dir/run") \
        > "$tmp/out" 2>&1
    status=$?
}
mkdir -p "$tmp/work/src" "$tmp/home"
printf 'import torch\n\n\ndef step(model, opt, x):\n    model(x).sum().backward()\n    opt.step()\n    opt.zero_grad\n' \
    > "$tmp/work/src/bad.py"
printf 'import torch\n\n\ndef evaluate(model, loader):\n    model.eval()\n    total = 0\n    for x, y in loader:\n        total += (model(x).argmax(-1) == y).sum().item()\n    return total\n' \
    > "$tmp/work/warn.py"   # a warning (TG003) only
steps=("$tmp"/steps/*)

run_step "${steps[0]}"
[ "$status" -eq 0 ] && ok "dependencies step: nothing missing, nothing installed" ||
    fail "dependencies step" "status $status: $(tail -n 3 "$tmp/out")"

mkdir -p "$tmp/shim"   # the build step's make, as a dry run
printf '#!/bin/sh\nexec %s -n "$@"\n' "$(command -v make)" > "$tmp/shim/make"
chmod +x "$tmp/shim/make"
STEP_PATH=$tmp/shim:$PATH run_step "${steps[1]}"
if [ "$status" -eq 0 ] && grep -q -- '-o build/pfc' "$tmp/out"; then
    ok "build step: make builds build/pfc in the action's folder (dry run)"
else
    fail "build step" "status $status: $(tail -n 3 "$tmp/out")"
fi

lint=${steps[2]}
run_step "$lint" paths=src
if [ "$status" -eq 1 ] && grep -q '^::error title=pfc (TG304),file=src/bad.py,line=7' "$tmp/out"; then
    ok "lint, format github: an annotation per finding, step fails"
else
    fail "lint, format github" "status $status: $(tail -n 3 "$tmp/out")"
fi
run_step "$lint" paths="warn.py
    src" fail-on=error
[ "$status" -eq 1 ] && grep -q 'TG003' "$tmp/out" && grep -q 'TG304' "$tmp/out" &&
    run_step "$lint" paths=warn.py fail-on=error && [ "$status" -eq 0 ] && grep -q 'TG003' "$tmp/out" &&
    ok "lint: paths on several lines; fail-on error lets a lesser finding pass" ||
    fail "lint: fail-on error" "status $status: $(tail -n 3 "$tmp/out")"
run_step "$lint" paths=src format=sarif sarif-file=out.sarif
if [ "$status" -eq 1 ] && python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));
assert d["runs"][0]["results"][0]["ruleId"] == "TG304"' "$tmp/work/out.sarif" 2> /dev/null &&
   grep -qx 'sarif-file=out.sarif' "$tmp/github_output"; then
    ok "lint, format sarif: a SARIF file and the sarif-file output"
else
    fail "lint, format sarif" "status $status: $(tail -n 3 "$tmp/out")"
fi
run_step "$lint" paths=src format=sarif fail-on=none
[ "$status" -eq 0 ] && [ -s "$tmp/work/pfc.sarif" ] && ok "lint: fail-on none never fails the step" ||
    fail "lint: fail-on none" "status $status: $(tail -n 3 "$tmp/out")"
run_step "$lint" format=text
[ "$status" -eq 2 ] && grep -q '^::error title=pfc::format is github or sarif' "$tmp/out" &&
    ok "lint: an unknown format is an error" || fail "lint: unknown format" "status $status"
# shell text in inputs stays data
run_step "$lint" paths='$(touch pwned1) `touch pwned2`; touch pwned3' \
    fail-on='warning; touch pwned4' sarif-file='x"; touch pwned5; "'
[ ! -e "$tmp/work/pwned1" ] && [ ! -e "$tmp/work/pwned2" ] && [ ! -e "$tmp/work/pwned3" ] &&
    [ ! -e "$tmp/work/pwned4" ] && [ ! -e "$tmp/work/pwned5" ] && [ "$status" -eq 2 ] &&
    ok "inputs holding shell syntax are never run" ||
    fail "inputs holding shell syntax" "status $status: $(ls "$tmp/work")"
run_step "$lint" paths='*'
grep -q "file=\*" "$tmp/out" && ok "paths are not globbed" || fail "paths are not globbed" "$(tail -n 2 "$tmp/out")"
finish
