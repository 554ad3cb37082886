# min-version: 3.12
def first[T](items: list[T]) -> T:
    return items[0]
