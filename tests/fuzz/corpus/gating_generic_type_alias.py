# min-version: 3.12
type Pair[T] = tuple[T, T]
