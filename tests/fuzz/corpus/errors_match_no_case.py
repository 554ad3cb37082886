# expect: 3:5: invalid syntax
match command:
    print(command)
