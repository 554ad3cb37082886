# with statements: plain, multiple items, parenthesized (3.9+/3.10 grammar), async.
import contextlib

with open("a.txt") as f:
    data = f.read()

with open("a") as a, open("b") as b:
    pass

with (open("a") as a, open("b") as b):
    pass

with (
    open("in.txt") as src,
    open("out.txt", "w") as dst,
):
    dst.write(src.read())

with (open("x"), open("y"),):
    pass

with (open("only")):
    pass

with (open("one") as one,):
    pass

with (yield_value := contextlib.nullcontext()) as ctx, contextlib.suppress(KeyError):
    pass

with (a, b) as (c, d), contextlib.nullcontext() as [e, f]:  # 1st item: tuple expr, tuple target
    pass

with contextlib.nullcontext() as obj.attr, contextlib.nullcontext() as items[0]:
    pass

with (
    contextlib.ExitStack() as stack
):
    stack.enter_context(contextlib.nullcontext())

with (lock := contextlib.nullcontext()): pass

with (a, b):  # two with-items in the AST, not one tuple
    pass


async def copy():
    async with (
        session() as s,
        s.get("url") as resp,
    ):
        return await resp.text()
    async with lock_a, lock_b as held:
        pass
    async with (lock_a,):
        pass
