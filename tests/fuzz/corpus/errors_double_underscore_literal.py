# expect: 2:6: invalid decimal literal
n = 1__000
