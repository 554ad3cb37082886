# Structural pattern matching: every pattern kind, plus soft keywords as names.
def describe(command):
    match command:
        case 0 | -1 | 1.5 | -2.5e3 | 3j | -4j | 1 + 2j | -1 - 0.5j:
            return "number"
        case "quit" | 'exit' | b"bye" | """long""" | "con" "cat":
            return "string"
        case None | True | False:
            return "singleton"
        case Color.RED | enum.Enum.__class__:
            return "value (dotted name)"
        case []:
            return "empty list"
        case ():
            return "empty tuple"
        case [x] | (x,):
            return x
        case first, *rest:
            return rest
        case [1, *_, 9]:
            return "star wildcard"
        case (*init, last,):
            return last
        case {"kind": "circle", "r": r}:
            return 3.14 * r * r
        case {"kind": _, **rest}:
            return rest
        case {Color.RED: value, -1: neg, 2j: [*_], None: {}}:
            return value, neg
        case Point(0, 0) | Point(x=0, y=0):
            return "origin"
        case Point(1, y=2,) | str() | bytes():
            return "mixed positional and keyword"
        case [Point(x=px) as p, *_] as whole if px > 0 and len(whole) > 1:
            return p
        case int(n) if (m := n * 2) > 10:
            return m
        case ([_, _] | (_, _, _)) as seq:
            return seq
        case (capture):
            return capture

def subjects(a, b):
    match a, b:
        case 1, 2:
            pass
    match *a, b:
        case _:
            pass
    match -a:
        case -1:
            pass

match = {"a": 1}  # 'match' and 'case' as ordinary identifiers
match["a"] = 2
match(1) if callable(match) else None
case = Point(1, 2)
print(case.x, match.get("a"))
match, case = case, match
