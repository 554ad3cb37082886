# PEP 654 exception groups and except*.
import asyncio


def run(tasks):
    try:
        raise ExceptionGroup("many", [ValueError(1), TypeError(2)])
    except* ValueError as eg:
        print("values", eg.exceptions)
    except* (TypeError, KeyError) as eg:
        print("types", eg)
    except *OSError:
        pass
    except*RuntimeError:
        raise
    else:
        print("no errors")
    finally:
        print("done")


async def gather(coros):
    try:
        async with asyncio.TaskGroup() as tg:
            for c in coros:
                tg.create_task(c)
    except* asyncio.CancelledError:
        raise
    except* Exception as group:
        for exc in group.exceptions:
            print(type(exc).__name__)


def nested():
    try:
        try:
            pass
        except* ValueError:
            raise TypeError("converted") from None
    except* TypeError as e:
        print("caught", e)


def regular():
    try:
        pass
    except (ValueError, TypeError) as e:
        print(e)
    except Exception:
        pass
    except:
        raise
