#!/usr/bin/env bash
# make install / make uninstall into a temporary DESTDIR: the binary (it
# runs), the man page, and the audit package when the tree holds one (here
# a stand-in given as AUDIT_PKG, so that the copy is tested whatever the
# tree holds); PREFIX is honoured; uninstall leaves nothing behind.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PFC=${PFC:-$ROOT/build/pfc}
BUILD=${BUILD:-build}
passed=0 failed=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
check() {   # check NAME CONDITION...: ok when the command succeeds
    local name=$1; shift
    if "$@"; then ok "$name"; else fail "$name" "$*"; fi
}
mk() { make -s -C "$ROOT" BUILD="$BUILD" "$@" > "$tmp/make.log" 2>&1; }

pkg=$tmp/src/pfc_audit
mkdir -p "$pkg/rules" "$pkg/__pycache__"
printf '"""stand-in"""\n' > "$pkg/__init__.py"
printf 'X = 1\n' > "$pkg/rules/one.py"
printf 'cache' > "$pkg/__pycache__/one.cpython-311.pyc"

dest=$tmp/stage
if mk install DESTDIR="$dest" PREFIX=/usr/local AUDIT_PKG="$pkg"; then
    ok "make install DESTDIR=... PREFIX=/usr/local"
else
    fail "make install" "$(tail -n 3 "$tmp/make.log")"
fi
check "binary installed, mode 755" test "$(stat -c %a "$dest/usr/local/bin/pfc" 2>/dev/null)" = 755
check "installed binary runs" sh -c "'$dest/usr/local/bin/pfc' version | grep -q '^pfc '"
check "man page installed" cmp -s "$ROOT/docs/pfc.1" "$dest/usr/local/share/man/man1/pfc.1"
lib=$dest/usr/local/lib/pfc/python/pfc_audit
check "audit package installed" cmp -s "$pkg/rules/one.py" "$lib/rules/one.py"
check "audit package: __init__.py" test -f "$lib/__init__.py"
check "audit package: no bytecode caches" test ! -e "$lib/__pycache__"
check "nothing outside DESTDIR" test ! -e "$tmp/usr"

if mk uninstall DESTDIR="$dest" PREFIX=/usr/local; then
    ok "make uninstall"
else
    fail "make uninstall" "$(tail -n 3 "$tmp/make.log")"
fi
left=$(find "$dest" -type f | sed "s|$dest||")
check "uninstall removes every file${left:+ (left: $left)}" test -z "$left"
check "uninstall removes lib/pfc" test ! -e "$dest/usr/local/lib/pfc"

# another prefix, and a tree without an audit package installs without one
dest=$tmp/opt
mk install DESTDIR="$dest" PREFIX=/opt/pfc AUDIT_PKG="$tmp/none"
check "PREFIX=/opt/pfc: binary under it" test -x "$dest/opt/pfc/bin/pfc"
check "PREFIX=/opt/pfc: man page under it" test -f "$dest/opt/pfc/share/man/man1/pfc.1"
check "no audit package: none installed" test ! -e "$dest/opt/pfc/lib/pfc"
mk uninstall DESTDIR="$dest" PREFIX=/opt/pfc
check "PREFIX=/opt/pfc: uninstalled" test -z "$(find "$dest" -type f)"

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
