# min-version: 3.12
class Stack[T]:
    def push(self, item: T) -> None:
        pass
