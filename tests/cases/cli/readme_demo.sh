# README.md's TG901 demo is what pfc prints: the block between the demo
# markers, against `pfc lint` on docs/examples/oom run from the top folder.
cd ../../..
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sed -n '/^<!-- demo:/,/^<!-- end demo -->/p' README.md | sed '1,2d;$d' | sed '$d' > "$tmp/readme"
{
    echo '$ ./pfc lint docs/examples/oom'
    "$PFC" lint --no-cache docs/examples/oom
    status=$?
    echo '$ echo $?'
    echo "$status"
} > "$tmp/actual" 2>&1
if diff -u "$tmp/readme" "$tmp/actual" > "$tmp/diff"; then
    echo "the README demo is pfc's output ($(wc -l < "$tmp/readme") lines)"
else
    cat "$tmp/diff"
fi
