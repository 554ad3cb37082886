# expect: 3:1: 'tuple' is an illegal expression for augmented assignment
a, b = 1, 2
a, b += 1
