# Mixed line endings: LF, CRLF and bare CR all terminate lines.
# This line ends with CRLF.
# This line ends with a bare CR.import sys

def f(x):    if x:
        return 1
    return 0  # comment then CR# an LF-terminated comment after two bare-CR lines
total = (1 +         2 +
         3)
joined = 1 + \    2
text = """ab
c"""
cont = 'x\
y'class C:
    a = 1    b = 2
print(f(total), joined, text, cont, C.a)
