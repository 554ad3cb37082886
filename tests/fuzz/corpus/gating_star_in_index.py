# min-version: 3.11
idx = (1, 2)
value = table[*idx]
