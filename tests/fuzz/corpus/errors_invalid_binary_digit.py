# expect: 2:13: invalid digit '2' in binary literal
flags = 0b102
