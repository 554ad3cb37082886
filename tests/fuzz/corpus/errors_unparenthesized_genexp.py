# expect: 2:11: Generator expression must be parenthesized
total = f(x for x in y, 1)
