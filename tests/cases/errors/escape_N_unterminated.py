# expect: 2:5: (unicode error) 'unicodeescape' codec can't decode bytes in position 1-9: malformed \N character escape
y = 'a\N{BULLET'
