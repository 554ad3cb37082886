# -*- coding: latin-1 -*-
# This file is encoded in ISO-8859-1, not UTF-8: é (0xE9) below is one byte.
# Comment with latin-1 bytes: café, naïve, Ångström, ½, ©.
CAFE = "café"
PRICE = "12 ½ Euro? no: 12 ½"
BYTES = b"caf\xe9"  # bytes literals must stay ASCII; use an escape
NAME = "Ren\xe9"


def same():
    return CAFE.encode("latin-1") == BYTES


print(same(), len(CAFE), NAME == "René")
