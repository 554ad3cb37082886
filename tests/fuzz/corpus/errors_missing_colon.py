# expect: 3:5: expected ':'
x = 1
if x
    pass
