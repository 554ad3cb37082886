#!/usr/bin/env python3
# Layout and trivia: comments, blank lines, joins, semicolons, tabs, form feed.
   
import os  # trailing comment
	
# a comment line at column 0
    # an indented comment line at module level
x = 1 + \
    2 + \
        3
assert x \
  == 6
if x and \
   x > 0:
    pass
total = (1 +  # comment inside parens
         2   # another
         # a full comment line inside brackets

         + 3)
items = [
    1,

  2,  
        3,
]
config = {'a': 1,
'b': 2}
a = 1; b = 2; c = 3;
if a: b = 4; c = 5
def f(): return 1; pass

class Tabbed:
	def method(self):
		if self:
			return 1  # tab-indented block
		return 0
  
def g():
    # comment before first statement

        # oddly indented comment
    y = 2
      
    # comment between statements
    return y
# comment at column 0 inside the function's indentation region
    
class Spaces:  
    def h(self):
        pass
            # deeper comment after a block
# dedent via comment does not close blocks
    x = 1
\

print(x)
