# expect: 2:12: parameter without a default follows parameter with a default
def f(a=1, b): pass
