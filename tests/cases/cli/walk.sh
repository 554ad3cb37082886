# Directory walking: sorted, skips VCS/caches/site-packages/virtualenvs, always
# lints explicitly named files; -j never changes the output.
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/proj/pkg" "$t/proj/.git" "$t/proj/__pycache__" "$t/proj/env" "$t/proj/lib/site-packages" "$t/proj/.venv"
touch "$t/proj/env/pyvenv.cfg"
for d in .git __pycache__ env lib/site-packages .venv; do printf 'x = (\n' > "$t/proj/$d/bad.py"; done
printf 'x = 1\n' > "$t/proj/a.py"
printf 'def f(:\n    pass\n' > "$t/proj/pkg/b.py"
printf 'y = )\n' > "$t/proj/pkg/c.pyi"
printf 'not python\n' > "$t/proj/notes.txt"
cd "$t/proj"
"$PFC" lint --output-format concise; echo "status $?"
"$PFC" lint --output-format concise -j 1 . > ../j1; "$PFC" lint --output-format concise -j 4 . > ../j4
cmp ../j1 ../j4 && echo "-j 1 and -j 4 agree"
echo "explicitly named file in a skipped folder:"
"$PFC" lint --output-format concise .venv/bad.py; echo "status $?"
echo ".gitignore is honoured:"
printf 'generated/\n*_pb2.py\n!keep_pb2.py\n' > .gitignore
mkdir -p generated && printf 'x = (\n' > generated/g.py && printf 'x = (\n' > pkg/a_pb2.py && printf 'x = (\n' > pkg/keep_pb2.py
"$PFC" lint --output-format concise; echo "status $?"
