# min-version: 3.13
type Handler[**P = [int, str]] = Callable[P, None]
