# Decorators (PEP 614 arbitrary expressions) and async constructs.
import asyncio
import functools

handlers = {"click": [lambda f: f]}
buttons = [functools.cache]


@functools.lru_cache(maxsize=None)
@staticmethod
def cached(n): return n


@handlers["click"][0]
@buttons[0]
@(lambda fn: fn)
@functools.wraps(cached) if cached else None
@x := functools.cache
def fancy(): ...


class Service:
    @property
    def name(self) -> str:
        return "svc"

    @name.setter
    def name(self, value): pass

    @classmethod
    async def create(cls, *, retries=3):
        await asyncio.sleep(0)
        return cls()

    async def stream(self):
        for i in range(3):
            yield i
            await asyncio.sleep(0.1)

    async def consume(self):
        async for item in self.stream():
            print(item)
        else:
            print("exhausted")
        values = [v async for v in self.stream() if await self.check(v)]
        mapping = {k: await self.check(k) async for k in self.stream()}
        gen = (await self.check(x) for x in range(3))
        async with asyncio.timeout(1), asyncio.Lock() as lock:
            return values, mapping, gen, lock

    async def check(self, v):
        return not await asyncio.sleep(0, result=False)


@dataclass(frozen=True)
class Frozen: x: int = 0


asyncio.run(Service.create())
