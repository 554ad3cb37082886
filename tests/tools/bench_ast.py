"""Times ast.parse over the .py files under ROOT, inside one process, after
reading them all (interpreter start-up and I/O are not counted).
Prints: files=N bytes=B seconds=S mb_per_s=R"""
import ast
import os
import sys
import time
import warnings


def main():
    root = sys.argv[1]
    warnings.simplefilter("ignore")
    sources = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(filenames):
            if name.endswith(".py"):
                with open(os.path.join(dirpath, name), "rb") as f:
                    sources.append(f.read())
    total = sum(len(s) for s in sources)
    start = time.perf_counter()
    for src in sources:
        try:
            ast.parse(src)
        except (SyntaxError, ValueError):
            pass
    seconds = time.perf_counter() - start
    print("files=%d bytes=%d seconds=%.4f mb_per_s=%.1f"
          % (len(sources), total, seconds, total / 1e6 / seconds))


if __name__ == "__main__":
    main()
