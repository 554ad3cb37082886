# expect: 1:1: invalid character '‣' (U+2023)
# coding: utf-16
x = 10
