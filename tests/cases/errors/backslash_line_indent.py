# expect: 5:8: unexpected indent
if x:
    a = 1
\
        b = 2
