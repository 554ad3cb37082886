# expect: 2:12: unterminated string literal (detected at line 2)
greeting = "hello
print(greeting)
