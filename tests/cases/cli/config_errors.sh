# Malformed configuration files: each is a usage error (exit 2) with its
# location, and (under make asan) none of these paths may leak.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'x = 1\n' > a.py
check() {   # check FILE CONTENT: one malformed config next to a.py
    rm -rf pfc.toml pyproject.toml
    printf '%s\n' "$2" > "$1"
    "$PFC" lint --no-cache a.py > /dev/null 2> err; status=$?
    echo "$status: $(sed "s|$tmp/||" err)"
}
check pfc.toml 'x = [1,'
check pfc.toml '[tool.pfc'
check pfc.toml 'a = 1
a = 2'
check pfc.toml 's = "unterminated'
check pfc.toml 'k = 01'
check pfc.toml '= 1'
check pfc.toml 'k = {a = 1'
check pfc.toml 'target-version = 3'
check pfc.toml 'target-version = "2.7"'
check pfc.toml 'select = "TG001"'
check pfc.toml 'select = [1]'
check pfc.toml 'ignore = [true]'
check pfc.toml 'extend-select = 5'
check pfc.toml 'exclude = [[]]'
check pfc.toml 'fail-on = "bogus"'
check pfc.toml 'per-file-ignores = 3'
check pfc.toml '[per-file-ignores]
"tests/*" = "TG001"'
check pyproject.toml '[tool.pfc]
select = 3'
check pyproject.toml '[tool]
pfc = ['
rm -rf pfc.toml pyproject.toml; mkdir pfc.toml
"$PFC" lint --no-cache a.py > /dev/null 2> err; echo "$?: $(sed "s|$tmp/||" err)"
