# expect: 3:5: (value error) invalid \x escape at position 0
x = 1
y = b'\xZZ'
