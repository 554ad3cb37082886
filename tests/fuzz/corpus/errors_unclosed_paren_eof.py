# expect: 2:17: '(' was never closed
result = compute(1, 2
