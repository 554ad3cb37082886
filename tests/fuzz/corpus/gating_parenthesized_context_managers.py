# min-version: 3.9
with (open("a") as f, open("b") as g):
    pass
