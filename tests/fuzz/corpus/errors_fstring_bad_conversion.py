# expect: 3:12: f-string: invalid conversion character 'z': expected 's', 'r', or 'a'
x = 1
msg = f"{x!z}"
