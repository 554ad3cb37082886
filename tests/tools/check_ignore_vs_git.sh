#!/usr/bin/env bash
# Dev tool (not part of `make test`): compares base/ignore.c with
# `git check-ignore` on a hand-written tree with nested .gitignore files, then
# on SEEDS random trees with random nested .gitignore files.
#   tests/tools/check_ignore_vs_git.sh [SEEDS]      (default 300; CC=... to pick a compiler)
# Prints each disagreement; exits 1 if there was any, 0 otherwise (or when git is missing).
set -u
cd "$(dirname "$0")/../.."
SEEDS=${1:-300}
CC=${CC:-cc}
if ! command -v git >/dev/null 2>&1; then
    echo "check_ignore_vs_git: git not found, skipped"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$CC -std=gnu11 -Wall -Wextra -Werror -O1 -g -o "$tmp/driver" \
    tests/tools/ignore_driver.c base/ignore.c || exit 2

# Keep the user's and the system's excludes and config out of it.
mkdir -p "$tmp/home/.config"
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

failures=0 cases=0 compared=0 ignored_total=0

# compare REPO LABEL: every path under REPO, as git and as the driver see it
compare() {
    local repo=$1 label=$2
    (cd "$repo" && find . -mindepth 1 -path ./.git -prune -o -printf '%P\0') | sort -z >"$tmp/paths"
    git -C "$repo" check-ignore -z --stdin <"$tmp/paths" >"$tmp/git.raw"
    local rc=$?
    if [ $rc -gt 1 ]; then
        echo "$label: git check-ignore failed ($rc)"
        failures=$((failures + 1))
        return
    fi
    "$tmp/driver" check "$repo" <"$tmp/paths" >"$tmp/drv.raw"
    tr '\0' '\n' <"$tmp/git.raw" | sort >"$tmp/git.txt"
    tr '\0' '\n' <"$tmp/drv.raw" | sort >"$tmp/drv.txt"
    cases=$((cases + 1))
    compared=$((compared + $(tr -cd '\0' <"$tmp/paths" | wc -c)))
    ignored_total=$((ignored_total + $(wc -l <"$tmp/git.txt")))
    if ! cmp -s "$tmp/git.txt" "$tmp/drv.txt"; then
        failures=$((failures + 1))
        echo "== $label: disagreement (< git only, > ignore.c only)"
        diff "$tmp/git.txt" "$tmp/drv.txt" | grep '^[<>]' | sed 's/^/   /'
        (cd "$repo" && find . -name .gitignore -path '*' -not -path './.git/*' | sort | while read -r g; do
            echo "   --- $g"
            sed 's/^/     |/' "$g" | cat -A | sed 's/\$$//'
        done)
    fi
}

new_repo() {
    rm -rf "$tmp/r"
    mkdir -p "$tmp/r"
    git -C "$tmp/r" init -q
}

# ---- the hand-written tree ----
new_repo
r=$tmp/r
cat >"$r/.gitignore" <<'EOF'
# comment
*.pyc
!keep.pyc
/top.py
build/
docs/*.md
**/cache
logs/**
a/**/b
\#file
\!bang
trail   
esc\ 
[abc].t
[!0-9]n
?.q
x**y
[a-
m/a**/b
n/**\/b
o/x**
p?**/c
[r]**/c
\s**/c
/t*u**
!/t*u
EOF
printf '!*.pyc\n/only_here\n*.tmp\n' >"$r/.gitignore.sub"
mkdir -p "$r/sub/deep" "$r/build" "$r/other" "$r/sub/deep/build" "$r/docs/a" "$r/x/docs" \
    "$r/cache" "$r/q" "$r/logs/d" "$r/a/x/y" "$r/a/b.d" "$r/sub/top.py.d"
mv "$r/.gitignore.sub" "$r/sub/.gitignore"
printf '*.pyc\r\n!build/\r\nspace \r\n' >"$r/sub/deep/.gitignore"
for f in top.py sub/top.py x.pyc keep.pyc sub/x.pyc sub/keep.pyc sub/deep/x.pyc \
         sub/deep/keep.pyc build/f.py other/build sub/deep/build/f.py docs/a.md docs/a/b.md \
         x/docs/a.md cache/f q/cache logs/a logs/d/e a/b a/x/b a/x/y/b a/xb '#file' '!bang' \
         bang trail 'trail   ' 'esc ' esc a.t d.t xn 5n 1.q 12.q sub/only_here only_here \
         sub/x.tmp x.tmp xzzy 'x/y' 'a-' '[a-' sub/deep/space 'sub/deep/space ' \
         sub/deep/other.pyc m/ab m/a/b m/ac/b m/ac/d/b m/acb m/ac/bd n/c/b n/c/d/b n/b \
         o/x o/xyz o/xy/z1 o/y py/c pyc py/d/c r/c rc r/d/c s/c sc s/d/c tu1 tu/v; do
    mkdir -p "$(dirname "$r/$f")"
    : >"$r/$f"
done
compare "$r" "hand-written tree"

# ---- random trees ----
for seed in $(seq 1 "$SEEDS"); do
    new_repo
    "$tmp/driver" gen "$seed" "$tmp/r" || exit 2
    compare "$tmp/r" "seed $seed"
done

echo "check_ignore_vs_git: $cases trees, $compared paths ($ignored_total ignored by git), $failures disagreeing trees"
[ $failures -eq 0 ]
