# expect: 2:8: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers
mode = 0777
