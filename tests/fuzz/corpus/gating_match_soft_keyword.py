# min-version: 3.10
match = [1, 2]
case = {"k": 0}
match match:
    case [case, *_] if case:
        print(case)
match(len(match)), match[0], case.get("k")
match (match):
    case _:
        pass
