# expect: 3:1: expected an indented block after function definition on line 2
def f():
return 1
