#!/usr/bin/env bash
# How `pfc lint --fix` writes files (cli/safe_write.c): no planted symlink is
# followed, the temporary is never readable by others, owner and links are
# kept, read-only and hard-linked files are left alone, a failed write is an
# E902 in every format with a non-zero exit and no "Fixed" claim, stale
# temporaries are removed, and an edit made while pfc works is never lost.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
CASES=$(cd "$(dirname "$0")" && pwd)/cases/fixes
SRC=$CASES/tg001_detach.py          # two safe TG001 fixes
FIXED=$CASES/tg001_detach.fixed.py
TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "skip $1: $2"; skipped=$((skipped + 1)); }

fresh() {   # fresh DIR: an empty directory under $TMP
    rm -rf "${TMP:?}/$1"
    mkdir -p "$TMP/$1"
    echo "$TMP/$1"
}

fix() {     # fix FILE...: pfc lint --fix; output in $TMP/out, $TMP/err; status in $status
    "$PFC" lint --no-cache --fix --output-format concise "$@" > "$TMP/out" 2> "$TMP/err"
    status=$?
}

# --- a symlink planted where the temporary file will be ---------------------------------
d=$(fresh plant)
cp "$SRC" "$d/f.py"
echo "precious" > "$d/victim"
# exec keeps the shell's pid, so the old "<file>.pfc-fix.<pid>" name is known in advance
sh -c 'd=$1; pfc=$2
for p in $(seq $(($$ - 5)) $(($$ + 5))); do
    ln -s "$d/victim" "$d/f.py.pfc-fix.$p"
    ln -s "$d/victim" "$d/.f.py.pfc-fix-$p-AAAAAA"
done
exec "$pfc" lint --no-cache --fix "$d/f.py"' sh "$d" "$PFC" > /dev/null 2>&1
if [ "$(cat "$d/victim")" != "precious" ]; then
    bad "planted symlink" "the file it points to was written"
elif [ -L "$d/f.py" ] || ! cmp -s "$d/f.py" "$FIXED"; then
    bad "planted symlink" "f.py is not the fixed regular file: $(ls -l "$d/f.py")"
else
    ok "planted symlink: not followed, the source stays a regular file"
fi

# --- the temporary is created private (0600, O_EXCL), never readable by others -----------
d=$(fresh private)
cp "$SRC" "$d/f.py"
chmod 600 "$d/f.py"
if ! command -v strace > /dev/null || ! strace -o /dev/null true 2> /dev/null; then
    skip "temporary file mode" "strace unavailable"
else
    (umask 022; strace -f -e trace=open,openat,creat -o "$TMP/trace" \
        "$PFC" lint --no-cache --fix "$d/f.py" > /dev/null 2>&1)
    creates=$(grep -E 'O_CREAT|creat\(' "$TMP/trace" | grep 'pfc-fix')
    leaky=$(echo "$creates" | grep -vE 'O_EXCL.*, 0[0-7]00\)' )
    if [ -z "$creates" ]; then
        bad "temporary file mode" "no temporary file creation traced"
    elif [ -n "$leaky" ]; then
        bad "temporary file mode" "created without O_EXCL or open to others: $leaky"
    elif [ "$(stat -c %a "$d/f.py")" != 600 ] || ! cmp -s "$d/f.py" "$FIXED"; then
        bad "temporary file mode" "f.py not fixed with mode 600"
    else
        ok "temporary file: O_CREAT|O_EXCL, mode 0600 from the start"
    fi
fi

# --- owner and group are kept -------------------------------------------------------------
d=$(fresh owner)
cp "$SRC" "$d/f.py"
if [ "$(id -u)" -ne 0 ] || ! id nobody > /dev/null 2>&1; then
    skip "owner kept" "needs root and a user nobody"
else
    group=$(id -gn nobody)
    chown "nobody:$group" "$d/f.py"
    chmod 640 "$d/f.py"
    fix "$d/f.py"
    got=$(stat -c '%U:%G %a' "$d/f.py")
    if [ "$got" != "nobody:$group 640" ] || ! cmp -s "$d/f.py" "$FIXED"; then
        bad "owner kept" "after the fix: $got"
    else
        ok "owner, group and mode kept"
    fi
fi

# --- a symlinked source: the target is rewritten, the link stays ----------------------------
d=$(fresh symlink)
mkdir "$d/real"
cp "$SRC" "$d/real/f.py"
ln -s real/f.py "$d/link.py"
fix "$d/link.py"
if [ ! -L "$d/link.py" ] || [ "$(readlink "$d/link.py")" != real/f.py ]; then
    bad "symlinked source" "the link was replaced: $(ls -l "$d/link.py")"
elif ! cmp -s "$d/real/f.py" "$FIXED"; then
    bad "symlinked source" "the link's target was not fixed"
elif ls -A "$d" "$d/real" | grep -q pfc-fix; then
    bad "symlinked source" "a temporary file was left: $(ls -A "$d" "$d/real")"
else
    ok "symlinked source: target fixed, link kept"
fi

# --- a read-only file is left alone (decided by the mode: root may write anything) ----------
d=$(fresh readonly)
cp "$SRC" "$d/f.py"
chmod 444 "$d/f.py"
fix "$d/f.py"
if ! cmp -s "$d/f.py" "$SRC" || [ "$(stat -c %a "$d/f.py")" != 444 ]; then
    bad "read-only file" "it was modified"
elif ! grep -q "f.py: warning: not fixed: .*read-only" "$TMP/err"; then
    bad "read-only file" "no message: $(cat "$TMP/err")"
elif grep -q '^Fixed' "$TMP/out"; then
    bad "read-only file" "claims fixes: $(grep '^Fixed' "$TMP/out")"
else
    ok "read-only file left alone, with a message"
fi

# --- a file with hard links is left alone ----------------------------------------------------
d=$(fresh hardlink)
cp "$SRC" "$d/f.py"
ln "$d/f.py" "$d/other.py"
fix "$d/f.py"
if ! cmp -s "$d/f.py" "$SRC" || [ "$(stat -c %i "$d/f.py")" != "$(stat -c %i "$d/other.py")" ]; then
    bad "hard link" "the file was replaced or the link split"
elif ! grep -q "f.py: warning: not fixed: .*hard links" "$TMP/err"; then
    bad "hard link" "no message: $(cat "$TMP/err")"
else
    ok "hard-linked file left alone, with a message"
fi

# --- a directory pfc cannot write in: E902 in every format, exit != 0, no false "Fixed" ------
d=$(fresh rodir)
chmod 755 "$TMP"
mkdir "$d/ro" "$d/rw"
cp "$SRC" "$d/ro/f.py"
cp "$SRC" "$d/rw/g.py"
chmod 666 "$d/ro/f.py"
as_user=()
if [ "$(id -u)" -eq 0 ]; then   # root writes anywhere: run as nobody
    if command -v setpriv > /dev/null && id nobody > /dev/null 2>&1; then
        as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
        cp "$PFC" "$TMP/pfc-copy"    # the checkout may not be readable by nobody
        chmod 755 "$TMP/pfc-copy"
        chown nobody "$d/rw" "$d/rw/g.py"
    fi
else
    chmod 555 "$d/ro"
fi
if [ "$(id -u)" -eq 0 ] && [ ${#as_user[@]} -eq 0 ]; then
    skip "read-only directory" "root without setpriv or a user nobody"
else
    pfc_bin=$PFC
    [ ${#as_user[@]} -gt 0 ] && pfc_bin=$TMP/pfc-copy
    problems=""
    for fmt in full concise json github sarif; do
        cp "$SRC" "$d/rw/g.py"
        "${as_user[@]}" "$pfc_bin" lint --no-cache --fix --output-format "$fmt" \
            "$d/ro/f.py" "$d/rw/g.py" > "$TMP/out" 2> "$TMP/err"
        status=$?
        [ "$status" -ne 0 ] || problems+="$fmt: exit 0; "
        grep -q 'E902' "$TMP/out" && grep -q "ro/f.py" "$TMP/out" &&
            grep -q 'could not write the fixes' "$TMP/out" ||
            problems+="$fmt: no E902 with the path; "
        summary=$TMP/out    # machine formats: on stderr, so stdout stays parseable
        case $fmt in json | github | sarif) summary=$TMP/err ;; esac
        grep -qx 'Fixed 2 problems.' "$summary" ||
            problems+="$fmt: not 'Fixed 2 problems.': $(grep -h Fixed "$TMP/out" "$TMP/err"); "
        if { [ "$fmt" = json ] || [ "$fmt" = sarif ]; } && command -v python3 > /dev/null; then
            python3 -m json.tool "$TMP/out" > /dev/null 2>&1 || problems+="$fmt: invalid JSON; "
        fi
        cmp -s "$d/ro/f.py" "$SRC" || problems+="$fmt: f.py changed; "
        cmp -s "$d/rw/g.py" "$FIXED" || problems+="$fmt: g.py not fixed; "
    done
    if [ -n "$problems" ]; then
        bad "read-only directory" "$problems"
    else
        ok "read-only directory: E902 in every format; only written fixes counted"
    fi
fi

# --- a full disk (the file size limit: write fails with EFBIG) ---------------------------------
d=$(fresh full)
cp "$SRC" "$d/f.py"
# the limit applies to pfc alone: its output goes through a pipe to an unlimited cat
(trap '' XFSZ; ulimit -f 0; exec "$PFC" lint --no-cache --fix --output-format concise "$d/f.py") \
    2>&1 | cat > "$TMP/out"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ] || ! grep -q "f.py:1:1: E902 could not write the fixes" "$TMP/out"; then
    bad "full disk" "status $status: $(tail -3 "$TMP/out")"
elif grep -q '^Fixed' "$TMP/out" || ! cmp -s "$d/f.py" "$SRC" || ls -A "$d" | grep -q pfc-fix; then
    bad "full disk" "claims fixes, changed the file or left a temporary: $(ls -A "$d")"
else
    ok "full disk: E902, exit $status, file and directory as before"
fi

# --- stale temporaries of a killed run are removed; nothing else is ----------------------------
d=$(fresh stale)
cp "$SRC" "$d/f.py"
sh -c 'exit 0' &
dead=$!
wait "$dead"
echo junk > "$d/.f.py.pfc-fix-$dead-a1B2c3"            # its process is gone
echo junk > "$d/.f.py.pfc-fix-$$-d4E5f6"               # alive (this shell) but old
touch -d '-10 minutes' "$d/.f.py.pfc-fix-$$-d4E5f6"
echo mine > "$d/.f.py.pfc-fix-$$-g7H8i9"               # alive and fresh: may be in use
echo mine > "$d/.f.py.pfc-fix-notours"                  # not our name pattern
echo junk > "$d/.g.py.pfc-fix-$dead-a1B2c3"             # another file's, gone too
echo mine > "$d/.g.py.pfc-fix-$$-a1B2c3"                # another file's, in use
echo mine > "$d/.f.py.pfc-fix-$dead-a1B2c"              # not 6 random characters
ln -s f.py "$d/.f.py.pfc-fix-$dead-j1K2l3"              # not a plain file
fix "$d/f.py"
left=$(ls -A "$d" | grep pfc-fix | sort | tr '\n' ' ')
want=$(printf '%s\n' ".f.py.pfc-fix-$$-g7H8i9" ".f.py.pfc-fix-notours" \
       ".g.py.pfc-fix-$$-a1B2c3" ".f.py.pfc-fix-$dead-a1B2c" ".f.py.pfc-fix-$dead-j1K2l3" |
       sort | tr '\n' ' ')
if [ "$left" != "$want" ]; then
    bad "stale temporaries" "left: $left; expected: $want"
elif ! cmp -s "$d/f.py" "$FIXED"; then
    bad "stale temporaries" "f.py not fixed"
else
    ok "stale temporaries removed, other files kept"
fi

# --- the lost-edit race: the user saves while pfc is fixing ------------------------------------
# PFC_TEST_HOOK_BEFORE_RENAME (test only) runs between the temporary's write and the check.
race() {    # race NAME HOOK CHECK: after the hook ran, CHECK (a grep pattern) must hold in f.py
    local name=$1 hook=$2 check=$3
    d=$(fresh race)
    cp "$SRC" "$d/f.py"
    PFC_TEST_HOOK_BEFORE_RENAME="$hook; touch '$d/hook-ran'" fix "$d/f.py"
    if [ ! -e "$d/hook-ran" ]; then
        bad "$name" "the hook did not run, the race was not reproduced"
    elif ! grep -q -- "$check" "$d/f.py"; then
        bad "$name" "the user's edit was lost"
    elif ! grep -q "f.py: warning: not fixed: the file changed" "$TMP/err"; then
        bad "$name" "no warning: $(cat "$TMP/err")"
    elif grep -q '^Fixed' "$TMP/out" || ls -A "$d" | grep -q pfc-fix; then
        bad "$name" "claims fixes or left a temporary"
    else
        ok "$name"
    fi
}
race "lost edit: an appended line survives" 'echo "# my edit" >> "$1"' '^# my edit$'
# same size, same inode, mtime put back: only the content hash can tell
race "lost edit: a same-size edit with its mtime restored survives" \
    'touch -r "$1" "$1.ref"; printf X | dd of="$1" bs=1 seek=1 conv=notrunc 2>/dev/null;
     touch -r "$1.ref" "$1"; rm "$1.ref"' '^#XTG001'

# removed meanwhile: the fixed copy must not bring it back
d=$(fresh removed)
cp "$SRC" "$d/f.py"
PFC_TEST_HOOK_BEFORE_RENAME='rm "$1"' fix "$d/f.py"
if [ -e "$d/f.py" ] || ls -A "$d" | grep -q pfc-fix; then
    bad "lost edit: a removed file" "it was recreated or a temporary left: $(ls -A "$d")"
elif ! grep -q "f.py: warning: not fixed: the file changed" "$TMP/err"; then
    bad "lost edit: a removed file" "no warning: $(cat "$TMP/err")"
else
    ok "lost edit: a file removed meanwhile stays removed"
fi

echo "writes: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
