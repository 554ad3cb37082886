#!/usr/bin/env bash
# make realworld: the fix-safety check of tests/fix_safety.sh on the
# real-world corpus (tests/realworld/corpus, or CORPUS), with the rules a user
# gets by default: --fix, then --fix --unsafe-fixes, each on a fresh copy.
set -u
cd "$(dirname "$0")"
PFC=${PFC:-../../build/pfc}
CORPUS=${CORPUS:-corpus}
if [ ! -d "$CORPUS" ]; then
    echo "realworld fixes: no corpus in tests/realworld/$CORPUS (see manifest.txt)"
    exit 0
fi
command -v python3 > /dev/null || { echo "realworld fixes: no python3"; exit 0; }
status=0
for mode in "" --unsafe; do
    python3 ../tools/fix_check.py --pfc "$PFC" --name realworld-fixes $mode "$CORPUS" || status=1
done
exit $status
