# This file uses CRLF line endings on every line.
import os


def join_paths(*parts):
    """Docstring spanning
    several CRLF-terminated lines."""
    result = os.path.join(
        *parts,  # trailing comment before CRLF
    )
    total = 1 + \
        2
    if result:
        return result
    else:
        return total


text = """triple-quoted
string whose newlines are CRLF in the source"""
raw = r"""raw \
continuation"""
cont = "backslash \
newline in a string"
values = [
    1,

    2,
]
print(join_paths("a", "b"), text, raw, cont, values)
