#!/usr/bin/env python3
"""Generate lexer/unicode_names_data.h (read by lexer/unicode_names.c): which \\N{NAME} escapes each CPython accepts.

Usage (from the repository root, with CPython 3.9..3.13 under pyenv):
    /root/.pyenv/versions/3.13.0/bin/python3 tests/tools/gen_unicode_names.py [OUTPUT]

pfc only has to decide whether a name is known, not which character it names,
so the table holds a 32-bit FNV-1a hash of each name (ASCII letters upper-cased,
as CPython's lookup folds case), not the names themselves: about 35,000 hashes,
delta-coded into a string literal (5 bits per character) with an absolute
checkpoint every 64 hashes for the binary search. The chance that a misspelt
name collides with a real one is about 1 in 120,000.

Candidates are the names unicodedata.name() gives (3.13) plus the formal name
aliases ("NULL", "LINE FEED", "BOM"), read through the interpreter's
unicodedata._ucnhash_CAPI (the hook the \\N decoder itself uses) with ctypes.
Names of the form "CJK UNIFIED IDEOGRAPH-XXXX" and "HANGUL SYLLABLE ..." are
computed by CPython rather than looked up, and pfc computes them too: only the
CJK ranges are emitted. Every candidate is then checked against each
interpreter's own unicode_escape decoder (the one the compiler uses for \\N);
a name first accepted by 3.11, 3.12 or 3.13 (a newer Unicode) is recorded with
that minor version so that an older --target-version rejects it.
"""
import ctypes
import os
import subprocess
import sys
import unicodedata

MINORS = (9, 10, 11, 12, 13)
CJK = "CJK UNIFIED IDEOGRAPH-"
HANGUL = "HANGUL SYLLABLE "
BLOCK = 64

CHECK = r"""
import codecs, sys, unicodedata
ok = []
for line in sys.stdin.read().split("\n"):
    if not line:
        continue
    try:
        codecs.decode(b"\\N{" + line.encode() + b"}", "unicode_escape")
        ok.append(line)
    except UnicodeDecodeError:
        pass
cjk = []
for cp in range(0x110000):
    n = unicodedata.name(chr(cp), "")
    if n.startswith("CJK UNIFIED IDEOGRAPH-"):
        if cjk and cjk[-1][1] == cp - 1:
            cjk[-1][1] = cp
        else:
            cjk.append([cp, cp])
print(unicodedata.unidata_version)
print(" ".join("%x-%x" % (lo, hi) for lo, hi in cjk))
print("\n".join(ok))
"""


def fnv1a(name):
    h = 0x811C9DC5
    for b in name.upper().encode("ascii"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def aliases():
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    ptr = get(unicodedata._ucnhash_CAPI, b"unicodedata._ucnhash_CAPI")
    proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_int,
                             ctypes.c_int)
    getname = proto(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_void_p))[0])
    buf = ctypes.create_string_buffer(256)
    out = []
    for cp in range(0xF0000, 0xF0200):   # CPython keeps aliases at U+F0000..
        if getname(cp, buf, 256, 1):
            out.append(buf.value.decode("ascii"))
    return out


def candidates():
    names = set(aliases())
    for cp in range(0x110000):
        n = unicodedata.name(chr(cp), "")
        if n and not n.startswith(CJK) and not n.startswith(HANGUL):
            names.add(n)
    return sorted(names)


def interpreter(minor):
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    dirs = sorted((d for d in os.listdir(os.path.join(root, "versions"))
                   if d.startswith("3.%d." % minor)),
                  key=lambda d: [int(x) for x in d.split(".") if x.isdigit()])
    if not dirs:
        sys.exit("no CPython 3.%d under %s/versions" % (minor, root))
    return os.path.join(root, "versions", dirs[-1], "bin", "python3")


def accepted_by(minor, names):
    out = subprocess.run([interpreter(minor), "-c", CHECK], input="\n".join(names),
                         capture_output=True, text=True, check=True).stdout.split("\n")
    cjk = [tuple(int(x, 16) for x in r.split("-")) for r in out[1].split()]
    return out[0], cjk, set(n for n in out[2:] if n)


def encode_stream(hashes):
    """Delta-coded hashes: each delta in 5-bit groups, low first, the last group
    of a delta marked by +32 (so 64 printable characters are used)."""
    alphabet = "".join(chr(c) for c in range(0x23, 0x7f) if chr(c) not in "\\?")[:64]
    chars, checkpoints, prev = [], [], 0
    for i, h in enumerate(hashes):
        if i % BLOCK == 0:
            checkpoints.append((h, len(chars)))
            prev = h
            continue
        d = h - prev
        prev = h
        while True:
            group = d & 31
            d >>= 5
            if d == 0:
                chars.append(alphabet[group + 32])
                break
            chars.append(alphabet[group])
    return alphabet, "".join(chars), checkpoints


def c_string_lines(s, width=96):
    return ['    "%s"' % s[i:i + width] for i in range(0, len(s), width)]


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "lexer", "unicode_names_data.h")
    names = candidates()
    first, cjk_by_minor, versions = {}, {}, {}
    for minor in MINORS:
        ucd, cjk, ok = accepted_by(minor, names)
        versions[minor] = ucd
        cjk_by_minor[minor] = cjk
        for n in ok:
            first.setdefault(n, minor)
    for n in names:   # lower case is accepted too: the hash folds it
        assert n.upper() == n, n
    known = [n for n in names if n in first]
    base = sorted(set(fnv1a(n) for n in known if first[n] == MINORS[0]))
    late = sorted(set((fnv1a(n), first[n]) for n in known if first[n] != MINORS[0]))
    assert len(base) == sum(1 for n in known if first[n] == MINORS[0]), "hash collision"
    alphabet, stream, checkpoints = encode_stream(base)
    cjk_rows, seen = [], set()
    for minor in MINORS:   # code points first named by this version, as ranges
        cps = sorted(cp for lo, hi in cjk_by_minor[minor] for cp in range(lo, hi + 1)
                     if cp not in seen)
        seen.update(cps)
        for cp in cps:
            if cjk_rows and cjk_rows[-1][2] == minor and cjk_rows[-1][1] == cp - 1:
                cjk_rows[-1][1] = cp
            else:
                cjk_rows.append([cp, cp, minor])
    cjk_rows = sorted(tuple(r) for r in cjk_rows)
    write(out_path, known, versions, alphabet, stream, checkpoints, late, cjk_rows,
          len(names) - len(known))


def write(path, known, versions, alphabet, stream, checkpoints, late, cjk_rows, dropped):
    v = sys.version_info
    lines = [
        "/* GENERATED FILE - DO NOT EDIT.",
        " * Generated by tests/tools/gen_unicode_names.py with Python %d.%d.%d:" % v[:3],
        " *     /root/.pyenv/versions/3.13.0/bin/python3 tests/tools/gen_unicode_names.py",
        " * %d names and aliases that \\N{...} accepts, checked against the unicode_escape" % len(known),
        " * decoder of each CPython (%s); %d names that"
        % (", ".join("3.%d: Unicode %s" % (m, versions[m]) for m in MINORS), dropped),
        " * unicodedata.name() gives but \\N rejects are left out. Hashes, not names:",
        " * see the generator. */",
        "#include <stdint.h>",
        "",
        "enum { NAMES_BLOCK = %d };" % BLOCK,
        "",
        "/* the digits of the delta stream: value = index in this alphabet */",
        'static const char alphabet[] = "%s";' % alphabet,
        "",
        "/* %d hashes known to every version, in blocks of NAMES_BLOCK: the first"
        % (len(known) - len(late)),
        " * hash of each block and where its deltas start in the stream */",
        "static const struct { uint32_t hash, at; } blocks[] = {",
    ]
    for i in range(0, len(checkpoints), 3):
        lines.append("    " + " ".join("{0x%08x, %d}," % c for c in checkpoints[i:i + 3]))
    lines += ["};", "", "static const char deltas[] ="]
    lines += c_string_lines(stream)
    lines[-1] += ";"
    lines += ["", "/* names that a newer Unicode added: hash, first CPython 3 minor */",
              "static const struct { uint32_t hash; uint8_t minor; } late[] = {"]
    for i in range(0, len(late), 4):
        lines.append("    " + " ".join("{0x%08x, %d}," % r for r in late[i:i + 4]))
    lines += ["};", "", "/* CJK UNIFIED IDEOGRAPH-XXXX ranges: first, last, first CPython 3 minor */",
              "static const struct { uint32_t lo, hi; uint8_t minor; } cjk[] = {"]
    for r in cjk_rows:
        lines.append("    {0x%X, 0x%X, %d}," % r)
    lines += ["};", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("%s: %d names, %d late, %d stream bytes" % (path, len(known), len(late), len(stream)))


if __name__ == "__main__":
    main()
