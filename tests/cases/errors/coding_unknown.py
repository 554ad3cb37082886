# expect: 0:-1: unknown encoding: foobar
# coding: foobar
x = 1
