# expect: 3:11: unterminated triple-quoted string literal (detected at line 5)
def f():
    doc = """starts here
    and never
    ends
