# PEP 695 type parameter syntax and PEP 696 defaults.
from collections.abc import Callable

type Number = int | float
type Pair[T] = tuple[T, T]
type Mapping2[K, V = str] = dict[K, list[V]]
type Bounded[T: (int, str)] = list[T]
type Fn[**P, R] = Callable[P, R]
type Variadic[*Ts] = tuple[int, *Ts]
type Recursive = list[Recursive] | int

def first[T](items: list[T]) -> T:
    return items[0]

def clamp[N: (int, float)](x: N, lo: N, hi: N) -> N:
    return max(lo, min(x, hi))

def upper_bound[S: str](s: S) -> S:
    return s

def wrap[**P, R](fn: Callable[P, R]) -> Callable[P, R]:
    return fn

def spread[*Ts](*args: *Ts) -> tuple[*Ts]:
    return args

def defaults[T = int, *Ts = *tuple[str, ...], **P = [int, str]]() -> None:
    pass

def bounded_default[T: (int, str) = int, U: object = str](a: T, b: U) -> None:
    pass

class Box[T]:
    def __init__(self, item: T) -> None:
        self.item = item

    def map[U](self, fn: Callable[[T], U]) -> "Box[U]":
        return Box(fn(self.item))

class Registry[K: str, V = None, *Ts = *tuple[int, ...], **P = ...](dict[K, V]):
    pass

class Shape[*Ts = *tuple[int, int]]:
    pass

class Empty[T,]: ...

# 'type' and 'match' remain ordinary names.
type = "keyword?"
print(type)
match = [1, 2]
type(match)
x = type.upper()
