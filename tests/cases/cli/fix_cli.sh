# --fix keeps permissions and writes atomically; --diff writes nothing and exits 1
# when it would change something; a file with a syntax error is never touched;
# unsafe fixes need --unsafe-fixes; JSON carries the edits.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > train.py <<'PY'
import torch
model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for x in []:
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    history.append(loss)
PY
chmod 640 train.py
cp train.py before.py
echo "--- diff"
"$PFC" lint --no-cache --diff train.py; echo "status $?"
cmp -s train.py before.py && echo "diff wrote nothing"
echo "--- unsafe diff"
"$PFC" lint --no-cache --diff --unsafe-fixes train.py; echo "status $?"
echo "--- json fix"
"$PFC" lint --no-cache --output-format json train.py | grep -o '"fix": {"applicability": "[a-z]*", "message": "[^"]*", "edits": \[{"content": "[^"]*"' 
echo "--- fix (safe only)"
"$PFC" lint --no-cache --fix --show-fixes --output-format concise train.py; echo "status $?"
stat -c '%a' train.py
ls
echo "--- syntax error: untouched"
printf 'for x in []:\n    losses.append(loss\n' > broken.py
cp broken.py broken.orig
"$PFC" lint --no-cache --fix --unsafe-fixes --output-format concise broken.py; echo "status $?"
cmp -s broken.py broken.orig && echo "broken.py untouched"
