# expect: 2:1: cannot assign to None
None = 0
