# Assignment expressions, star targets and PEP 646 star expressions.
import re

if (m := re.match(r"\d+", "42abc")) is not None:
    print(m.group())

while chunk := stream.read(1024):
    process(chunk)

values = [y for x in data if (y := transform(x)) is not None]
totals = {key: (total := total + v) for key, v in pairs}
seen = {(last := item) for item in items}
first_big = any((big := n) > 100 for n in numbers)
print(f"{(w := 5)}", w)
grid[i := 0] = grid[j := 1]
row = matrix[r := 2][c := 3]
call(arg := 1, key=(kw := 2))
sub = text[(start := 1):(stop := 5)]
cond = a if (flag := check()) else b
lam = lambda: (tmp := 42)
assert (ok := validate()), ok

a, *rest = [1, 2, 3]
*init, tail = "abc"
first, *middle, last = range(10)
[x, *ys] = (p, q), *more = items
(a, b), [c, *d] = pair, seq
for head, *others in rows:
    pass
for *prefix, suffix in rows:
    pass
for x in *left, *right:
    pass

merged = [*a, *b, 0]
combined = {*s1, *s2}
options = {**defaults, "verbose": True, **overrides}
call(*args, *more_args, key=1, **kwargs, **extra)
point = *xs, *ys
print(*(1, 2), sep="")


def produce(a, b):
    yield *a, *b
    x = yield *a, 1
    return *a, *b


array[*idx]
array[*idx, 0]
array[0, *idx] = value
Shape = tuple[int, *Ts]
Array = Generic[*Shape, DType]


def variadic(*args: *Ts) -> tuple[*Ts]:
    return args
