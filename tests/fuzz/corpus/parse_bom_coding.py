# -*- coding: utf-8 -*-
# This file starts with a UTF-8 byte order mark (EF BB BF) followed by a
# matching utf-8 coding cookie; the BOM is not part of the first token.
"""Module docstring: naïve café, Ελληνικά, 日本語."""
import unicodedata

GREETING = "¡Hola, señor!"
SYMBOLS = {"euro": "€", "pound": "£", "yen": "¥"}
résumé = "identifier with accents"


def describe(ch: str) -> str:
    return f"{ch!r}: {unicodedata.name(ch, '?')}"  # comment with emoji 🎉


for sym in SYMBOLS.values():
    print(describe(sym), GREETING, résumé)
