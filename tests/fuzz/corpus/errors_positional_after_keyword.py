# expect: 2:9: positional argument follows keyword argument
f(a=1, b)
