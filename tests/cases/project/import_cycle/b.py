from a import Net


def helper():
    return Net()
