# The output formats on a file with two syntax errors and one clean file.
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cd "$t"
printf 'import torch\nx = [1,\n     2 3]\nif x\n    pass\n' > two.py
printf 'x = 1\n' > clean.py
for fmt in full concise json github; do
    echo "--- $fmt"
    NO_COLOR=1 "$PFC" lint --output-format "$fmt" two.py clean.py; echo "status $?"
done
echo "--- json, no findings"
"$PFC" lint --output-format json clean.py; echo "status $?"
