# expect: 2:5: cannot delete function call
del f()
