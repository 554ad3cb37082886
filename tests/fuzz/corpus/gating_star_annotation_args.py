# min-version: 3.11
def call(*args: *Ts) -> None:
    pass
