# expect: 0:-1: 'euc_jp' codec can't decode byte 0xa4 in position 126: illegal multibyte sequence
# coding: euc-jp
x = 1
y = '�'
