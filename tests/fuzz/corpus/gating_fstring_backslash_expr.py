# min-version: 3.12
words = ["a", "b"]
print(f"{'\n'.join(words)}")
