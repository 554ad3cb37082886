# min-version: 3.10
data = [10, 20]
print(data[i := 1], i)
