# This file deliberately ends without a trailing newline,
# inside an indented block, so EOF must supply NEWLINE and DEDENTs.
import sys


class Reader:
    def __init__(self, path):
        self.path = path

    def lines(self):
        with open(self.path) as fh:
            for line in fh:
                if line.strip():
                    yield line.rstrip("\n")


def main(argv):
    reader = Reader(argv[1])
    count = 0
    for _ in reader.lines():
        count += 1
    return count