# expect: 2:13: closing parenthesis ']' does not match opening parenthesis '('
pair = (1, 2]
