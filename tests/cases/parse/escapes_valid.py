a = r'\x4 \N{NOT A NAME}'
b = '\N{BULLET} \N{bullet} \N{NULL} \N{BOM}'
c = b'\N{FOO} \u12 \x41'
d = '\N{CJK UNIFIED IDEOGRAPH-4E00}\N{HANGUL SYLLABLE GAG}'
e = f'{a}\N{BULLET}{{\x41}}'
f = fr'\x{a}'
g = rb'\x'
h = '\x41\u0041\U00000041\101\
'
