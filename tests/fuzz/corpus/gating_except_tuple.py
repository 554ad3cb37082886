# min-version: 3.9
try:
    pass
except (ValueError, TypeError) as e:
    print(e)
