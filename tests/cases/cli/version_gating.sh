# --target-version reports syntax newer than the target, naming the version.
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cd "$t"
printf 'type Point[T = int] = tuple[T, T]\nmatch p:\n    case (x, _):\n        pass\ntry:\n    pass\nexcept* ValueError:\n    pass\nprint(f"{"nested"}")\n' > new.py
for v in 3.9 3.10 3.11 3.12 3.13; do
    echo "--- target $v"
    "$PFC" lint --output-format concise --target-version "$v" new.py; echo "status $?"
done
