# expect: 2:9: invalid hexadecimal literal
mask = 0x
