# expect: 3:22: f-string: expecting '}'
value = 1
msg = f"total: {value"
