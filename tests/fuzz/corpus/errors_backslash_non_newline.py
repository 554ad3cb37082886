# expect: 2:8: unexpected character after line continuation character
x = 1 \ + 2
