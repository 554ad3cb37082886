# expect: 2:7: named arguments must follow bare *
def f(*): pass
