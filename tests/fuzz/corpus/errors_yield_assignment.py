# expect: 3:9: assignment to yield expression not possible
def gen():
    x = yield = 1
