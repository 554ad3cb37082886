# min-version: 3.9
s = {x := 1, y := 2}
