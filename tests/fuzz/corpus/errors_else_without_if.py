# expect: 3:1: invalid syntax
x = 1
else:
    pass
