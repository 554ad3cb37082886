# min-version: 3.13
class Array[*Ts = *tuple[int]]:
    pass
