# String literal prefixes in every case, quoting styles, escapes, continuations.
plain = "double", 'single', """triple double""", '''triple single'''
raw = r"\d", R'\w', r"""\s+""", R'''\b'''
uni = u"text", U'TEXT', u"""multi""", U'''MULTI'''
byt = b"\x00\xff", B'abc', b"""bytes""", B'''BYTES'''
rawbytes = br"\d", bR"\d", Br"\d", BR"\d", rb"\d", rB"\d", Rb"\d", RB"\d"
rawbytes3 = br'''\n''', RB"""\t"""
fmt = f"{plain}", F'{raw}', f"""{uni}""", F'''{byt}'''
rawfmt = fr"\d{plain}", fR"{raw}", Fr"{uni}", FR"{byt}"
rawfmt2 = rf"\w{plain}", rF'{raw}', Rf"""{uni}""", RF'''{byt}'''

embedded = """She said "hi" and 'bye', then ""two"" quotes."""
embedded2 = '''It's a 'quoted' "word" with '' pairs.'''
edge = """ends with a quote\""""
edge2 = '''ends with a quote\''''
empty = "", '', """""", '''''', b"", r"", f""
escapes = "\\ \' \" \a \b \f \n \r \t \v \0 \07 \177 \x41 \u00e9 \U0001F600 \N{BULLET}"
bytes_escapes = b"\\ \' \" \a \b \f \n \r \t \v \0 \x41 \177"
unknown_escape_kept = "\q \d"  # invalid escapes: a SyntaxWarning, not an error
raw_quote = r"a \" stays", r'\'', rb"\\"
continued = "first part \
second part"
continued_raw = r"raw \
keeps backslash"
continued_bytes = b'bytes \
continue'
triple = """line one
line two \
joined
    indented line"""
concatenated = ("implicit " 'concatenation '
                """across """ r'lines'
                u" and prefixes")
byte_concat = b"one" rb"two" B'three'
unicode_text = "café ñ 日本語 😀", "\N{GREEK SMALL LETTER ALPHA}"
docstring_like = """
    Indented docstring body with a \t tab escape and trailing spaces   
"""
