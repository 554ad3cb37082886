# Exit codes and option errors: 0 clean, 1 findings, 2 usage.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"; t=.
printf 'x = 1\n' > "$t/ok.py"; printf 'x = = 1\n' > "$t/bad.py"
"$PFC" lint "$t/ok.py" > /dev/null; echo "clean: $?"
"$PFC" lint "$t/bad.py" > /dev/null; echo "syntax error: $?"
"$PFC" lint --exit-zero "$t/bad.py" > /dev/null; echo "--exit-zero: $?"
"$PFC" lint --fail-on error --select TG001 --no-cache -j 2 "$t/bad.py" > /dev/null; echo "select/fail-on/no-cache/-j accepted: $?"
"$PFC" lint --bogus "$t/ok.py"; echo "unknown option: $?"
"$PFC" lint --target-version 3.8 "$t/ok.py"; echo "bad target: $?"
"$PFC" lint --output-format xml "$t/ok.py"; echo "bad format: $?"
"$PFC" lint -j 0 "$t/ok.py"; echo "bad -j: $?"
PFC_OUTPUT_FORMAT=concise "$PFC" lint "$t/bad.py" > "$t/out"; echo "env format: $?"; sed "s|$t/||" "$t/out"
"$PFC" frobnicate; echo "unknown command: $?"
"$PFC" emit "$t/bad.py" > "$t/out"; echo "emit with syntax error: $?"; cmp "$t/out" "$t/bad.py" && echo "emit output identical"
"$PFC" emit "$t/missing.py"; echo "emit missing file: $?"
