# Simple statements, operators and every numeric literal form.
"""Module docstring before the future import."""
from __future__ import annotations
import os
import os.path as osp, sys
from . import sibling
from .. import parent as p
from ...pkg.mod import (alpha, beta as b,
                        gamma,)
from .mod import *

counter = 0


def outer():
    global counter, total
    value = 1
    def inner():
        nonlocal value
        value += 1
        del value
    del counter, (a, b), [c, d], obj.attr, obj[0], obj[1:2]
    assert value, f"bad {value}"
    assert isinstance(value, int)
    if 0 < value <= 10 < 20 != 30 == 30 >= 1 > 0:
        pass
    ok = value not in (1, 2) and value is not None or not value in {3}
    sign = "pos" if value > 0 else "neg" if value < 0 else "zero"
    raise ValueError("boom") from None


def generator(items):
    received = yield
    yield from items
    x = yield from (i * 2 for i in items)
    return x


async def waiter(task):
    result = await task
    return await (await task)


slices = seq[1:2], seq[::2], seq[::-1], seq[1:], seq[:-1], seq[:], seq[a:b:c]
multi = arr[1:2, ::3, ...], arr[..., 0], arr[:, None], arr[()], Ellipsis is ...
ints = 0, 00, 0_0, 000_000, 7, 1_000_000, 0xFF, 0Xdead_BEEF, 0o17, 0O7_7, 0b1010, 0B1_0
floats = 1.0, 1., .5, 1e10, 1E-5, 2.5e+3, 1_000.000_1, 0.0, 00.5, 1_0e1_0, 0e0
imag = 1j, 1J, 2.5j, .5j, 1e3j, 1_000.5e-3j, 0j, 00j, 09.5j, 0_9j
ops = 2 ** -1, -x ** 2, ~5, +3, 7 // 2, 7 % 3, 1 << 4 >> 2, a & b | c ^ d, m @ n
counter += 1; counter -= 1; counter *= 2; counter /= 2; counter //= 1
counter %= 3; counter **= 2; counter <<= 1; counter >>= 1
counter &= 7; counter |= 8; counter ^= 1; matrix @= other
a = b = c = 0
x: int
y: list[int] = []
obj.attr: str = "annotated attribute"
if __name__ == "__main__": sys.exit(0)
