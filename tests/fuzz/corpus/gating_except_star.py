# min-version: 3.11
try:
    raise ExceptionGroup("eg", [ValueError(1)])
except* ValueError as eg:
    print(eg.exceptions)
