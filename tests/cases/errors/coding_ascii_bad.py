# expect: 0:-1: 'ascii' codec can't decode byte 0xe9 in position 131: ordinal not in range(128)
# -*- coding: ascii -*-
x = 1
y = 'é'
