# expect: 3:7: unterminated f-string literal (detected at line 3)
name = "x"
msg = f"hello {name}
