# Parameter lists of def and lambda: every kind, separators, defaults, annotations.
def nothing(): pass
def positional(a, b, c): pass
def with_defaults(a, b=1, c=(2, 3)): pass
def pos_only(a, b, /): pass
def pos_only_defaults(a, b=2, /, c=3): pass
def kw_only(*, key, flag=False): pass
def star_args(*args): pass
def star_kwargs(**kwargs): pass
def everything(a, b=1, /, c=2, *args, d, e=3, **kwargs): pass
def pos_then_kw(a, /, *, b): pass
def trailing_comma(
    a,
    b: int = 0,
    /,
    c: "str" = "",
    *args: tuple[int, ...],
    d: float,
    e: list[int] | None = None,
    **kwargs: dict[str, object],
) -> None:
    pass
def annotated(x: int, y: "Forward" = None) -> list[int]: return [x]
def kw_trailing(*, a,): pass
def star_trailing(*args,): pass
def kwargs_trailing(**kwargs,): pass
def slash_trailing(a, /,): pass
def default_exprs(a=lambda: 0, b=[1, 2][0], c={"k": 1}, d=f"{1}", e=not True, f=-1): pass
def ann_exprs(a: (yield_ := int), b: int if True else str, c: lambda: 0 = None): pass


async def coroutine(a, /, b, *, c=None) -> "Awaitable[None]":
    pass


identity = lambda: None
one = lambda x: x
two = lambda x, y=1: x + y
posonly = lambda a, b, /, c: (a, b, c)
kwonly = lambda *, k=0: k
variadic = lambda *args, **kwargs: (args, kwargs)
full = lambda a, b=2, /, c=3, *args, d, e=5, **kw: None
bare_star = lambda a, *, b: a + b
trailing = lambda a, b,: a
nested = lambda f: lambda *a, **k: f(*a, **k)
default_lambda = lambda a=lambda: 1: a()
conditional = lambda x: "pos" if x > 0 else "neg" if x < 0 else "zero"
in_call = sorted(items, key=lambda item: (item.priority, -item.size))
in_comprehension = [lambda v=v: v for v in range(3)]
