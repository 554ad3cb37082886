# min-version: 3.9
type = "soft keyword used as a plain name"
print(type(type), type.upper())
