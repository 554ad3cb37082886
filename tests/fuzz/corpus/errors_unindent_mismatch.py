# expect: 4:10: unindent does not match any outer indentation level
if True:
        a = 1
    b = 2
