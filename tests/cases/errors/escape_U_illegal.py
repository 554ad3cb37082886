# expect: 2:5: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode character
y = '\U00110000'
