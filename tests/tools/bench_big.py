"""Writes one large valid Python module for make bench: whole modules of the
corpus (valid UTF-8, no coding cookie, no __future__ import, accepted by
ast.parse) one after another, in sorted order, repeated until the file holds
at least MB megabytes. Usage: bench_big.py ROOT MB OUT"""
import ast
import os
import sys
import warnings


def modules(root):
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield os.path.join(dirpath, name)


def usable(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    head = text.split("\n", 2)[:2]
    if any("coding" in line for line in head) or "__future__" in text or "\t" in text:
        return False
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        return False
    return True


def main():
    root, mb, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    warnings.simplefilter("ignore")
    want = int(mb * 1e6)
    chunks, total = [], 0
    for path in modules(root):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) > 200_000 or not usable(data):
            continue
        chunks.append(data if data.endswith(b"\n") else data + b"\n")
        total += len(chunks[-1])
        if total >= want:
            break
    with open(out, "wb") as f:
        written = 0
        while written < want:
            for c in chunks:
                f.write(c)
                written += len(c)
                if written >= want:
                    break
    print("bytes=%d" % written)


if __name__ == "__main__":
    main()
