"""C literal parsing: integer, floating, character and string constants."""

from __future__ import annotations

import re

from ..ir.datamodel import StdTypes
from ..ir.types import CType, IntType
from ..ir.values import round_f32

_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11,
            "\\": 92, "'": 39, '"': 34, "?": 63, "e": 27}


def int_literal(text: str, std: StdTypes) -> tuple[int, IntType]:
    """Value and type of an integer constant (C11 6.4.4.1)."""
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)", text)
    if not m:
        raise ValueError(text)
    digits, suffix = m.group(1), m.group(2).lower()
    if digits[:2] in ("0x", "0X"):
        value, decimal = int(digits, 16), False
    elif digits[:2] in ("0b", "0B"):
        value, decimal = int(digits[2:], 2), False
    elif len(digits) > 1 and digits[0] == "0":
        value, decimal = int(digits, 8), False
    else:
        value, decimal = int(digits), True
    unsigned = "u" in suffix
    longs = suffix.count("l")
    if longs == 2:
        cands = [std.llong, std.ullong]
    elif longs == 1:
        cands = [std.long, std.ulong, std.llong, std.ullong]
    else:
        cands = [std.int, std.uint, std.long, std.ulong, std.llong, std.ullong]
    if unsigned:
        cands = [t for t in cands if not t.signed]
    elif decimal:
        # Decimal constants without u never become unsigned (except as a last resort).
        cands = [t for t in cands if t.signed] + [std.ullong]
    for t in cands:
        if t.min <= value <= t.max:
            return value, t
    return value & ((1 << 64) - 1), std.ullong


def float_literal(text: str, std: StdTypes) -> tuple[float, CType]:
    t = text.rstrip()
    ty: CType = std.double
    if t[-1] in "fF":
        ty, t = std.float, t[:-1]
    elif t[-1] in "lL":
        t = t[:-1]  # long double is analysed as double
    if t.lower().startswith("0x"):
        value = float.fromhex(t)
    else:
        value = float(t)
    if ty is std.float:
        value = round_f32(value)
    return value, ty


def _unescape(body: str) -> list[int]:
    """Bytes of a C string/char literal body (between the quotes).

    The source text is its bytes read as latin-1 (see ``preprocess``): each
    character is one byte of the file, kept as it is (UTF-8 stays UTF-8)."""
    out: list[int] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.extend(c.encode("latin-1") if ord(c) < 256 else c.encode("utf-8"))
            i += 1
            continue
        i += 1
        e = body[i]
        if e == "x":
            j = i + 1
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(body[i + 1:j], 16) & 0xFF)
            i = j
        elif e in "01234567":
            j = i
            while j < len(body) and j < i + 3 and body[j] in "01234567":
                j += 1
            out.append(int(body[i:j], 8) & 0xFF)
            i = j
        else:
            out.append(_ESCAPES.get(e, ord(e)))
            i += 1
    return out


def char_literal(text: str) -> int:
    """Value of a character constant: type int, value of the (signed) char."""
    if text.startswith(("L", "u", "U")):
        text = text[1:]
    vals = _unescape(text[1:-1])
    if not vals:
        return 0
    v = 0
    for b in vals:  # multi-character constants: implementation-defined, gcc's rule
        v = (v << 8) | b
    v &= 0xFFFFFFFF
    if len(vals) == 1:
        return v - 256 if v >= 128 else v
    return v - (1 << 32) if v >= (1 << 31) else v


def string_literal(text: str) -> bytes:
    """Bytes (without the terminating NUL) of a string literal; adjacent literals are
    already concatenated by pycparser into one token with inner quotes."""
    if text.startswith(("L", "u8", "u", "U")):
        raise ValueError("wide string literals")
    parts = re.findall(r'"((?:\\.|[^"\\])*)"', text, re.S)
    return bytes(b for p in parts for b in _unescape(p))
