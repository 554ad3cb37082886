"""Prints the .py files under ROOT that this interpreter's ast.parse rejects.

Usage: python3 oracle_syntax.py ROOT
Output: one path relative to ROOT per line, sorted, then a line "# files N".
The interpreter running this script is the oracle for its own grammar."""
import ast
import os
import sys
import warnings


def main():
    root = sys.argv[1]
    warnings.simplefilter("ignore")
    rejected, count = [], 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            count += 1
            with open(path, "rb") as f:
                source = f.read()
            try:
                ast.parse(source, path)
            except (SyntaxError, ValueError):
                rejected.append(os.path.relpath(path, root))
    for path in sorted(rejected):
        print(path)
    print("# files", count)


if __name__ == "__main__":
    main()
