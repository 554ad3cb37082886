# expect: 2:9: invalid syntax
total = $amount
