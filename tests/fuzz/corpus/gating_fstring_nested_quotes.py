# min-version: 3.12
user = {"name": "Ada"}
print(f"hello {user["name"]}")
