# expect: 4:1: inconsistent use of tabs and spaces in indentation
if True:
	x = 1
        y = 2
