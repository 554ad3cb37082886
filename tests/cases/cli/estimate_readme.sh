# README.md's pfc estimate sample is what pfc prints: the block between the
# estimate demo markers, against `pfc estimate` on docs/examples/oom run from
# the top folder.
cd ../../..
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sed -n '/^<!-- estimate demo:/,/^<!-- end estimate demo -->/p' README.md | sed '1,2d;$d' | sed '$d' > "$tmp/readme"
{
    echo '$ ./pfc estimate docs/examples/oom/train.py --gpu a100-80gb'
    "$PFC" estimate docs/examples/oom/train.py --gpu a100-80gb
} > "$tmp/actual" 2>&1
if [ -s "$tmp/readme" ] && diff -u "$tmp/readme" "$tmp/actual" > "$tmp/diff"; then
    echo "the README estimate sample is pfc's output ($(wc -l < "$tmp/readme") lines)"
else
    echo "the README estimate sample differs from pfc's output:"
    cat "$tmp/diff"
fi
