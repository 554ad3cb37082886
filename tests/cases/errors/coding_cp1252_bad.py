# expect: 0:-1: 'charmap' codec can't decode byte 0x81 in position 128: character maps to <undefined>
# coding: cp1252
x = 1  # 
