# PEP 701 f-strings: quotes may be reused, nesting is arbitrary.
user = {"name": "Ada", "tags": ["math", "eng"]}
width, prec = 12, 3
value = 3.14159

greeting = f"hello {user["name"]}!"
tags = f"tags: {", ".join(user["tags"])}"
nested = f"{f"{f"{value}"}"}"
deep = f'{f'{f'{user['name']}'}'}'

aligned = f"{value:{width}.{prec}f}|"
dynamic = f"{value:>{width}}|{value:<{width - 2}.{prec}}"
spec_call = f"{value:{'>' if width > 5 else '<'}{width}}"

dbg1 = f"{value=}"
dbg2 = f"{ value = }"
dbg3 = f"{value = !r}"
dbg4 = f"{value=:.2f}"
dbg5 = f"{ value * 2 = !s:>{width}}"
conv = f"{user!r} {user!s} {user!a}"

braces = f"{{literal}} {{{value}}} }}{{"
lambda_in = f"{(lambda x: x * 2)(3)}"
ternary = f"{'yes' if value else 'no'}"
walrus = f"{(n := 10)} and {n}"
dict_in = f"{ {'a': 1}['a'] }"

report = f"""
    name: {
        user["name"]  # the user's name
    }
    total: {
        sum(
            [1, 2, 3],  # numbers
        )
    }
"""

joined = f"{"\n".join(["a", "b"])}"
tabbed = f"{'\t'.join(user['tags'])}"

raw1 = rf"\d+{value}\s*"
raw2 = fr"\w{width}"
raw3 = Rf"C:\path\{user['name']}"
raw4 = FR"{prec}\n"
raw5 = rF"{value!r}\b"
raw6 = fR'{width}\\'

mixed = "plain " f"fmt {value} " 'more ' f'{width}' """tail"""
multi = (
    f"{user['name']}: "
    "is "
    rf"{value:.1f}\%"
)
data = b"bytes " b'only ' rb"\x00"
