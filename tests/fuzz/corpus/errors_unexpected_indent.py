# expect: 3:4: unexpected indent
x = 1
    y = 2
