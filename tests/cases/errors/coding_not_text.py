# expect: 0:-1: 'rot13' is not a text encoding; use codecs.decode() to handle arbitrary codecs
# coding: rot13
x = 1
