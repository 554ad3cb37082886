# expect: 2:25: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-13: unknown Unicode character name
y = f'a{1}\N{NOT A NAME}'
