# min-version: 3.12
total = 3
print(f"""{
    total  # a comment inside the replacement field
}""")
