# expect: 2:9: '[' was never closed
items = [
    1,
    2,
