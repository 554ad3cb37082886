# expect: 2:5: (unicode error) 'unicodeescape' codec can't decode bytes in position 1-19: unknown Unicode character name
y = 'a\N{NOT A REAL NAME}'
