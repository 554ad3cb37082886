# expect: 4:8: expected one or more exception types
try:
    pass
except*:
    pass
