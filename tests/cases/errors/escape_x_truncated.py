# expect: 3:5: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \xXX escape
x = 1
y = '\x4'
