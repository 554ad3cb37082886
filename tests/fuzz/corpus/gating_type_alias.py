# min-version: 3.12
type Vector = list[float]
