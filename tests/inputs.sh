#!/usr/bin/env bash
# Inputs that are not what they seem never hang, never pass silently:
#  - a FIFO, a device or a socket, named on the command line, met in a walked
#    tree or standing as pyproject.toml, ends fast in an error naming what it is;
#  - a file 70 directories deep, or behind a path longer than PATH_MAX, is linted;
#  - a damaged result cache (packs truncated, garbled in the header, the index
#    or an entry, entries swapped, a FIFO) gives the results of a --no-cache
#    run; an unusable cache directory (or packs that are directories), one notice.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
POS=$ROOT/tests/cases/rules/TG001/pos_alias_th_extend.py     # TG001 + TG003
POS2=$ROOT/tests/cases/rules/TG001/pos_deque_window.py
TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "skip $1: $2"; skipped=$((skipped + 1)); }

# fails NAME PATTERN CMD...: CMD must end within 10 s, non-zero, printing PATTERN
fails() {
    local name=$1 pattern=$2
    shift 2
    timeout 10 "$@" > "$TMP/out" 2>&1 < /dev/null
    local status=$?
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        bad "$name" "still running after 10 s"
    elif [ "$status" -eq 0 ]; then
        bad "$name" "exit status 0: $(head -c 300 "$TMP/out")"
    elif ! grep -qE -- "$pattern" "$TMP/out"; then
        bad "$name" "output lacks /$pattern/: $(head -c 300 "$TMP/out")"
    else
        ok "$name"
    fi
}

# ---- files that are not regular files -------------------------------------------------
mkdir "$TMP/special" && cd "$TMP/special" || exit 1
mkfifo fifo.py
fails "FIFO named for lint" 'fifo.py:1:1: E902 is a FIFO' "$PFC" lint --no-cache --output-format concise fifo.py
fails "FIFO named for emit" 'is a FIFO' "$PFC" emit fifo.py
fails "FIFO named for dump-cst" 'is a FIFO' "$PFC" dump-cst fifo.py
fails "FIFO named for dump-ir" 'is a FIFO' "$PFC" dump-ir fifo.py
fails "FIFO named for estimate" 'is a FIFO' "$PFC" estimate fifo.py
ln -s /dev/zero zero.py
fails "x.py -> /dev/zero" 'zero.py:1:1: E902 is a character device' "$PFC" lint --no-cache --output-format concise zero.py
fails "x.py -> /dev/zero for estimate" 'is a character device' "$PFC" estimate zero.py
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock.py 2>/dev/null; then
    fails "socket named for lint" 'sock.py:1:1: E902 is a socket' "$PFC" lint --no-cache --output-format concise sock.py
else
    skip "socket named for lint" "no python3 to make a socket"
fi
truncate -s 65M huge.py
fails "65 MiB file" 'huge.py:1:1: E902 file too large' "$PFC" lint --no-cache --output-format concise huge.py

mkdir -p "$TMP/tree/pkg" && cd "$TMP/tree" || exit 1
echo 'x = 1' > pkg/clean.py
mkfifo pkg/pipe.py
fails "FIFO inside a walked tree" 'pkg/pipe.py:1:1: E902 is a FIFO' "$PFC" lint --no-cache --output-format concise .
rm pkg/pipe.py
ln -s /dev/zero pkg/zero.py
fails "x.py -> /dev/zero inside a tree" 'pkg/zero.py:1:1: E902 is a character device' "$PFC" lint --no-cache --output-format concise .

mkdir -p "$TMP/proj/src" && cd "$TMP/proj" || exit 1
echo 'x = 1' > src/clean.py
mkfifo pyproject.toml
fails "FIFO as pyproject.toml" 'pyproject.toml: cannot read: is a FIFO' "$PFC" lint --no-cache src

# ---- depth and length -----------------------------------------------------------------
# lints NAME DIR PATTERN: a TG001 finding at the bottom must be reported
lints() {
    local name=$1 dir=$2 pattern=$3
    (cd "$TMP" && timeout 30 "$PFC" lint --no-cache --output-format concise "$dir") > "$TMP/out" 2>&1
    local status=$?
    if [ "$status" -ne 1 ] || ! grep -qE -- "$pattern" "$TMP/out"; then
        bad "$name" "exit $status, output lacks /$pattern/: $(tail -c 300 "$TMP/out")"
    else
        ok "$name"
    fi
}
d=deep
for i in $(seq 70); do d=$d/d$i; done
mkdir -p "$TMP/$d" && cp "$POS" "$TMP/$d/x.py"
lints "70 directories deep" deep '/d70/x\.py:11:21: TG001'

# 25 components of 200 bytes: a 5,000-byte path, beyond PATH_MAX; mkdir -p
# and cp cannot make it, cd one level at a time can
comp=$(printf 'p%.0s' $(seq 200))
(mkdir "$TMP/long" && cd "$TMP/long" && for i in $(seq 25); do mkdir "$comp" && cd "$comp" || exit 1; done && cp "$POS" x.py) || bad "path longer than PATH_MAX" "cannot make it"
lints "path longer than PATH_MAX" long "$comp/x\.py:11:21: TG001"
printf '[tool.pfc]\nignore = ["TG003"]\n' > "$TMP/long/pyproject.toml"
(cd "$TMP" && timeout 30 "$PFC" lint --no-cache --output-format concise long) > "$TMP/out" 2>&1
if grep -q 'TG001' "$TMP/out" && ! grep -q 'TG003' "$TMP/out"; then
    ok "configuration found for a path longer than PATH_MAX"
else
    bad "configuration found for a path longer than PATH_MAX" "$(tail -c 300 "$TMP/out")"
fi

# ---- the result cache -----------------------------------------------------------------
# .pfc_cache/pack-0 .. pack-f (cli/cache.h); `pfc debug-cache` lists each pack's
# entries as "  KEY offset O size S born B used U".
mkdir "$TMP/cache" && cd "$TMP/cache" || exit 1
cp "$POS" a.py && cp "$POS2" b.py && echo 'x = 1' > c.py && echo 'y = 2' > d.py
"$PFC" lint --no-cache --output-format concise . > want 2>&1
echo "status $?" >> want
entries() { "$PFC" debug-cache | grep -c '^  '; }
packs() { ls .pfc_cache | grep '^pack-.$'; }
# entry_at N: "PACK OFFSET SIZE" of the Nth entry listed
entry_at() {
    "$PFC" debug-cache | awk -v n="$1" '/^pack-/ { p = substr($1, 1, length($1) - 1) }
        /^  / && ++k == n { print p, $3, $5 }'
}
# poke FILE OFFSET BYTES: overwrite in place (printf escapes)
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
# cached NAME DAMAGE: fill the cache, damage its packs, then a cached run
# must print what --no-cache printed, and leave sound entries behind
cached() {
    local name=$1 damage=$2
    rm -rf .pfc_cache
    "$PFC" lint --output-format concise . > /dev/null 2>&1
    if [ "$(entries)" -ne 4 ]; then
        bad "$name" "expected 4 cache entries, found $(entries)"
        return
    fi
    $damage
    if ! "$PFC" debug-cache | grep -q 'damaged\|ignored'; then   # the damage took
        bad "$name" "debug-cache sees no damage: $("$PFC" debug-cache | head -c 300)"
        return
    fi
    timeout 10 "$PFC" lint --output-format concise . > got 2>&1
    echo "status $?" >> got
    if ! cmp -s want got; then
        bad "$name" "differs from --no-cache: $(diff want got | head -c 300)"
        return
    fi
    timeout 10 "$PFC" lint --output-format concise . > got 2>&1   # the rewritten entries
    echo "status $?" >> got
    if ! cmp -s want got; then
        bad "$name" "second run differs from --no-cache: $(diff want got | head -c 300)"
    elif [ "$(entries)" -ne 4 ] || "$PFC" debug-cache | grep -q 'damaged\|ignored'; then
        bad "$name" "not 4 sound entries after the rerun: $("$PFC" debug-cache | head -c 300)"
    else
        ok "$name"
    fi
}
truncate_packs() { for p in $(packs); do truncate -s -20 ".pfc_cache/$p"; done; }
cached "cache packs truncated by 20 bytes" truncate_packs
halve_packs() { for p in $(packs); do truncate -s $(($(stat -c %s ".pfc_cache/$p") / 2)) ".pfc_cache/$p"; done; }
cached "cache packs cut in half" halve_packs
short_packs() { for p in $(packs); do truncate -s 10 ".pfc_cache/$p"; done; }
cached "cache packs shorter than a header" short_packs
garble_index() { # the first slot's offset (byte 56 + 40): the index checksum fails
    for p in $(packs); do poke ".pfc_cache/$p" 96 '\001\000\000\000'; done
}
cached "cache index garbled" garble_index
garble_heads() { # magic, then the byte-order mark (byte 16) as another machine writes it
    for p in $(packs); do poke ".pfc_cache/$p" 0 'pfc-pock'; done
}
cached "cache packs with a wrong magic" garble_heads
swap_order() { for p in $(packs); do poke ".pfc_cache/$p" 16 '\001\002\003\004'; done; }
cached "cache packs in the other byte order" swap_order
foreign_version() { for p in $(packs); do poke ".pfc_cache/$p" 24 '9.9.9'; done; }
cached "cache packs of another pfc version" foreign_version
garble_entries() { # plausible counts where pfc 0.1.0 kept them (byte 12 of an entry),
    # huge ones where it keeps them now (byte 48)
    local n pack off size
    for n in 1 2 3 4; do
        read -r pack off size <<< "$(entry_at $n)"
        poke ".pfc_cache/$pack" $((off + 12)) '9 9 9 0\n'
        poke ".pfc_cache/$pack" $((off + 48)) '\377\377\377\177'
    done
}
cached "cache entries with garbage counts" garble_entries
swap_entries() { # c.py's and d.py's entries have the same size: each gets the other's bytes
    local list p1 o1 s1 p2 o2 s2
    list=$("$PFC" debug-cache | awk '/^pack-/ { p = substr($1, 1, length($1) - 1) } /^  / { print p, $3, $5 }' |
        sort -k3,3n | awk 'prev == $3 { print last; print; exit } { prev = $3; last = $0 }')
    read -r p1 o1 s1 p2 o2 s2 <<< "$(echo $list)"
    if [ -z "$s2" ]; then
        echo "no two entries of the same size" >&2
        return
    fi
    dd if=".pfc_cache/$p1" bs=1 skip="$o1" count="$s1" of=one 2>/dev/null
    dd if=".pfc_cache/$p2" bs=1 skip="$o2" count="$s2" of=two 2>/dev/null
    dd if=two of=".pfc_cache/$p1" bs=1 seek="$o1" conv=notrunc 2>/dev/null
    dd if=one of=".pfc_cache/$p2" bs=1 seek="$o2" conv=notrunc 2>/dev/null
    rm -f one two
}
cached "cache entries swapped between files" swap_entries
fifo_packs() { for p in $(packs); do rm ".pfc_cache/$p" && mkfifo ".pfc_cache/$p"; done; }
cached "cache packs replaced by FIFOs" fifo_packs
if [ "$(id -u)" -ne 0 ]; then
    unreadable_packs() { chmod 000 .pfc_cache/pack-*; }
    cached "cache packs unreadable" unreadable_packs
else
    skip "cache packs unreadable" "root ignores mode bits (a FIFO and a directory are covered)"
fi
# linting one file keeps the entries of the others
rm -rf .pfc_cache
"$PFC" lint --output-format concise . > /dev/null 2>&1
echo 'x = 3' > c.py
"$PFC" lint --output-format concise c.py > /dev/null 2>&1
if [ "$("$PFC" debug-cache | grep -c '^  ')" -eq 4 ] && ! "$PFC" debug-cache | grep -q damaged; then
    ok "cache keeps the entries of files not linted, drops the one an edit replaced"
else
    bad "cache keeps the entries of files not linted" "$("$PFC" debug-cache | head -c 400)"
fi
echo 'x = 1' > c.py

# unusable_cache NAME SETUP: the run succeeds as --no-cache does, with one notice
unusable_cache() {
    local name=$1 setup=$2
    rm -rf .pfc_cache
    $setup
    timeout 10 "$PFC" lint --output-format concise . > got 2> err
    echo "status $?" >> got
    local notices
    notices=$(grep -c 'cache' err)
    if ! cmp -s want got; then
        bad "$name" "differs from --no-cache: $(diff want got | head -c 300)"
    elif [ "$notices" -ne 1 ] || [ "$(wc -l < err)" -ne 1 ]; then
        bad "$name" "expected one notice on stderr, got: $(head -c 300 err)"
    else
        ok "$name"
    fi
}
cache_is_file() { echo 'not a directory' > .pfc_cache; }
unusable_cache "cache directory is a regular file" cache_is_file
cache_link_nowhere() { ln -s /proc/version/x .pfc_cache; }
unusable_cache "cache directory is a link below a file" cache_link_nowhere
packs_are_directories() { mkdir -p .pfc_cache && for i in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do mkdir .pfc_cache/pack-$i; done; }
unusable_cache "cache packs replaced by directories" packs_are_directories
rm -rf .pfc_cache
rm -f .pfc_cache
if [ "$(id -u)" -ne 0 ]; then
    chmod 555 .
    unusable_cache "read-only project directory" true
    chmod 755 .
else
    skip "read-only project directory" "root ignores mode bits (covered by the cases above)"
fi

echo "inputs: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
