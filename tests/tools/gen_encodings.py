#!/usr/bin/env python3
"""Generate lexer/encodings_data.h: the encoding names CPython accepts in a PEP 263
coding cookie. lexer/encodings.c holds the lookup (and the tokenizer's
get_normal_name() shortcut) that reads the table.

Usage (from the repository root):
    /root/.pyenv/versions/3.13.0/bin/python3 tests/tools/gen_encodings.py [OUTPUT]

OUTPUT defaults to lexer/encodings_data.h under this script's repository root.

How codecs.lookup(name) resolves a name (observed on CPython 3.13, and checked
below against the real codecs.lookup):
  1. Python/codecs.c normalises the UTF-8 bytes of the name the way
     _Py_normalize_encoding does: ASCII letters are lowercased, ASCII letters,
     digits and '.' are kept, every run of any other bytes (including the bytes of
     non-ASCII characters) becomes a single '_', and such runs at the start or end
     are dropped.  A name containing NUL is an error (ValueError).
  2. encodings.search_function() looks the normalised name N up in
     encodings.aliases.aliases, then N with '.' replaced by '_'; it then imports
     encodings.<alias target> or, failing that, encodings.<N>; module names
     containing '.' are skipped.
The generator collects every candidate (alias keys, alias targets, encodings
package modules), normalises it, keeps what codecs.lookup accepts, and records
per name:
  KNOWN   codecs.lookup(N) succeeds
  VIA_DOT N is an alias key whose target imports, so a name with '.' where N has
          '_' also resolves (e.g. "iso8859.1" -> "iso8859_1")
  UTF8    the codec found is utf-8
  TEXT    the codec is a text encoding (codecs.CodecInfo._is_text_encoding);
          the tokenizer rejects non-text codecs such as rot13 or hex.
Dotted alias keys are kept even when lookup fails (flags 0) because they stop
the '.' -> '_' retry.
"""
import codecs
import encodings
import encodings.aliases
import itertools
import os
import pkgutil
import random
import string
import sys

KNOWN, VIA_DOT, UTF8, TEXT = 1, 2, 4, 8
ALIASES = encodings.aliases.aliases


def c_normalize(name):
    """Model of the C normalisation in lexer/encodings.c (bytes in, str or None out)."""
    data = name.encode("utf-8", "surrogatepass") if isinstance(name, str) else name
    if b"\0" in data:
        return None
    out = []
    punct = False
    for b in data:
        ch = chr(b)
        if b < 128 and (ch.isalnum() or ch == "."):
            if punct and out:
                out.append("_")
            punct = False
            out.append(ch.lower())
        else:
            punct = True
    return "".join(out)


def real_lookup(name):
    """codecs.lookup as a (known, utf8, text) triple."""
    try:
        ci = codecs.lookup(name)
    except (LookupError, ValueError, UnicodeError):
        return (False, False, False)
    return (True, ci.name == "utf-8", bool(getattr(ci, "_is_text_encoding", True)))


def flags_of(res):
    known, utf8, text = res
    return (KNOWN if known else 0) | (UTF8 if utf8 else 0) | (TEXT if text else 0)


def dotted_variants(n):
    """Every spelling of n with some non-empty subset of its '_' replaced by '.'."""
    idx = [i for i, ch in enumerate(n) if ch == "_"]
    for k in range(1, min(len(idx), 8) + 1):
        for sub in itertools.combinations(idx, k):
            s = list(n)
            for i in sub:
                s[i] = "."
            yield "".join(s)


def build_table():
    mods = {m.name for m in pkgutil.iter_modules(encodings.__path__)}
    cands = set()
    for s in itertools.chain(ALIASES.keys(), ALIASES.values(), mods):
        n = c_normalize(s)
        if n:
            cands.add(n)
    table = {}
    for n in sorted(cands):
        res = real_lookup(n)
        f = flags_of(res)
        if "." not in n and "_" in n and ALIASES.get(n):
            # Does a dotted spelling reach this alias?  Use a spelling that is
            # not itself an alias key (that would short-circuit the retry).
            for d in dotted_variants(n):
                if d not in ALIASES:
                    dres = real_lookup(d)
                    if dres[0]:
                        assert dres == res, (n, d, res, dres)
                        f |= VIA_DOT
                    break
        if f & KNOWN or ("." in n and n in ALIASES):
            table[n] = f
    return table, mods


def model_lookup(table, name):
    """Model of lookup() in lexer/encodings.c: flags or 0."""
    n = c_normalize(name)
    if not n:
        return 0
    f = table.get(n)
    if f is not None:
        return f if f & KNOWN else 0
    if "." not in n:
        return 0
    f = table.get(n.replace(".", "_"), 0)
    return f if f & VIA_DOT else 0


def model_normal_name(name):
    """Model of get_normal_name() in CPython's tokenizer (first 12 bytes, ASCII lower, '_' -> '-')."""
    data = name.encode("utf-8", "surrogatepass")
    buf = []
    for b in data[:12]:
        if b == 0:
            break
        buf.append("-" if b == ord("_") else (chr(b).lower() if b < 128 else chr(b)))
    buf = "".join(buf)
    if buf == "utf-8" or buf.startswith("utf-8-"):
        return "utf-8"
    if (buf in ("latin-1", "iso-8859-1", "iso-latin-1")
            or buf.startswith(("latin-1-", "iso-8859-1-", "iso-latin-1-"))):
        return "iso-8859-1"
    return None


def test_strings(table, mods):
    rnd = random.Random(263)
    names = set(table) | set(ALIASES) | set(ALIASES.values()) | mods
    out = set()
    for n in sorted(names):
        out.add(n)
        out.add(n.upper())
        out.add(n.title())
        out.add(n.replace("_", "-"))
        out.add(n.replace("_", " "))
        out.add(n.replace("_", "--"))
        out.add(n.replace("_", ""))
        out.add(" " + n.upper() + " ")
        out.add("-" + n + "_")
        out.add(n.replace("_", "\u00e9"))
        out.add(n + "\u00e9")
        for d in itertools.islice(dotted_variants(n), 64):
            out.add(d)
            out.add(d.upper())
        for _ in range(3):
            i = rnd.randrange(len(n) + 1)
            out.add(n[:i] + rnd.choice(string.ascii_lowercase + string.digits + "._- ") + n[i + 1:])
            out.add(n[:i] + rnd.choice("._-+ /") + n[i:])
            out.add(n[:i] + n[i + 1:])
    out.update([
        "", " ", "-", "_", ".", "..", "utf-8", " UTF-8 ", "utf--8", "UTF_8", "latin 1",
        "latin.1", "utf.8", "u.8", "-utf8-", "utf8\u00e9", "utf\u00e98", "u\u03a98",
        "latin\u03a91", "utf\uff18", "\uff55\uff54\uff46\uff18", "iso8859.1",
        "iso.8859.1", "ansi.x3.4.1968", "ansi_x3_4_1968", "ansi_x3.4_1968",
        "cshproman8", "csHPRoman8", "uft-8", "nonesuch", "mbcs", "oem", "dbcs",
        "aliases", "__init__", "utf-8\0", "utf8-sig", "utf_8_sig", "rot13", "hex",
        "latex+latin1", "utf-8-foo", "x" * 300, "utf" + "_" * 300 + "8",
        ".utf8", "utf8.", "utf..8", "utf_.8",
    ])
    return sorted(out)


def check(table, mods):
    tests = test_strings(table, mods)
    bad = []
    for s in tests:
        want = flags_of(real_lookup(s))
        got = model_lookup(table, s) & (KNOWN | UTF8 | TEXT)
        if want != got:
            bad.append((s, want, got))
    if bad:
        for b in bad[:20]:
            print("MISMATCH", repr(b[0]), "codecs:", b[1], "model:", b[2], file=sys.stderr)
        sys.exit(f"{len(bad)} mismatches between codecs.lookup and the C model")
    return len(tests)


def check_cookies(table):
    """End to end: a cookie is accepted by compile() iff its normal name (or the
    name itself) is a known text encoding."""
    rnd = random.Random(3120)
    names = sorted(table)
    cookie_chars = string.ascii_letters + string.digits + "-_."
    cookies = set()
    for n in names:
        cookies.add(n)
        cookies.add(n.upper().replace("_", "-"))
    for base in ("utf-8", "latin-1", "iso-8859-1", "iso-latin-1", "utf8", "latin1"):
        for _ in range(40):
            tail = "".join(rnd.choice(cookie_chars) for _ in range(rnd.randrange(0, 8)))
            s = "".join(ch.upper() if rnd.random() < 0.3 else ch for ch in base)
            s = s.replace("-", rnd.choice("-_")) + tail
            cookies.add(s)
    cookies.update(["uft-8", "nonesuch", "rot13", "hex", "utf-8-sig", "utf8-sig",
                    "UTF-8-SIG", "iso-latin-1-xx", "utf-8-sig-and-a-long-tail"])
    bad = []
    for c in sorted(cookies):
        src = f"# -*- coding: {c} -*-\npass\n".encode("ascii")
        try:
            compile(src, "<cookie>", "exec")
            accepted = True
        except SyntaxError as e:
            msg = str(e)
            accepted = not ("unknown encoding" in msg or "not a text encoding" in msg)
        except Exception:
            accepted = True  # decoding trouble, not a name problem
        norm = model_normal_name(c)
        f = model_lookup(table, norm if norm else c)
        predicted = bool(f & KNOWN) and bool(f & TEXT)
        if predicted != accepted:
            bad.append((c, accepted, predicted))
    if bad:
        for b in bad[:20]:
            print("COOKIE MISMATCH", b, file=sys.stderr)
        sys.exit(f"{len(bad)} cookie mismatches")
    return len(cookies)


def c_string(s):
    assert all(32 <= ord(ch) < 127 and ch not in '"\\' for ch in s), s
    return '"' + s + '"'


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "lexer", "encodings_data.h")

    table, mods = build_table()
    ntests = check(table, mods)
    ncookies = check_cookies(table)
    names = sorted(table)  # ASCII, so Python order == strcmp order
    maxlen = max(len(n) for n in names)
    n_known = sum(1 for n in names if table[n] & KNOWN)

    def fl(f):
        parts = [p for bit, p in ((KNOWN, "KNOWN"), (VIA_DOT, "VIA_DOT"), (UTF8, "UTF8"),
                                  (TEXT, "TEXT")) if f & bit]
        return " | ".join(parts) if parts else "0"

    rows = "\n".join(f"    {{{c_string(n)}, {fl(table[n])}}}," for n in names)
    pyver = "%d.%d.%d" % sys.version_info[:3]
    text = f"""\
/* GENERATED FILE - DO NOT EDIT.
 * Generated by tests/tools/gen_encodings.py with Python {pyver} on {sys.platform}:
 *     /root/.pyenv/versions/3.13.0/bin/python3 tests/tools/gen_encodings.py
 * The table lists every normalised encoding name codecs.lookup() accepts
 * ({n_known} names; aliases, alias targets and encodings package modules), checked
 * against codecs.lookup on {ntests} spellings and against compile() on {ncookies}
 * coding cookies. lexer/encodings.c models the lookup rules of the generator. */
#include <stdint.h>

enum {{
    KNOWN = 1,    /* codecs.lookup(name) succeeds */
    VIA_DOT = 2,  /* alias key also reachable with '.' in place of '_' */
    UTF8 = 4,     /* the codec is utf-8 */
    TEXT = 8,     /* a text encoding (the tokenizer rejects the others) */
}};

#define MAX_NAME {maxlen}

static const struct {{
    const char *name;
    uint8_t flags;
}} names[] = {{
{rows}
}};
"""
    with open(out_path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    print(f"{out_path}: {len(names)} names ({n_known} known), max length {maxlen}; "
          f"{ntests} lookup checks, {ncookies} cookie checks passed")


if __name__ == "__main__":
    main()
