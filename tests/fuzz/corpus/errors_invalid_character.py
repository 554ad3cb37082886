# expect: 2:10: invalid character '€' (U+20AC)
price = 5€
