# expect: 3:10: unmatched ')'
x = 1
y = x + 2)
