# expect: 2:10: f-string: valid expression required before '}'
msg = f"{}"
