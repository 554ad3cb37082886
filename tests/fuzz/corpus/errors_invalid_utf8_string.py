# expect: 3:5: (unicode error) 'utf-8' codec can't decode byte 0xff in position 2: invalid start byte
x = 1
y = "abÿcd"
