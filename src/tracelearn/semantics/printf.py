"""C printf formatting (the glibc behaviour the programs are compared against)."""

from __future__ import annotations

import math
import re
from typing import Callable, Sequence

_SPEC = re.compile(rb"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|L|q|j|z|t)?([diouxXeEfFgGaAcspn%])")


class FormatError(Exception):
    pass


def _bits(length: bytes | None, long_bits: int) -> int:
    return {b"hh": 8, b"h": 16, b"l": long_bits, b"ll": 64, b"q": 64, b"j": 64,
            b"z": long_bits, b"t": long_bits, b"L": 64}.get(length or b"", 32)


def _pad(body: str, flags: str, width: int | None, numeric: bool) -> str:
    if width is None or len(body) >= width:
        return body
    if "-" in flags:
        return body.ljust(width)
    if "0" in flags and numeric:
        sign = body[0] if body[:1] in "+- " else ""
        rest = body[len(sign):]
        prefix = ""
        if rest[:2].lower() == "0x":
            prefix, rest = rest[:2], rest[2:]
        return sign + prefix + rest.rjust(width - len(sign) - len(prefix), "0")
    return body.rjust(width)


def _int_text(v: int, conv: str, flags: str, prec: int | None) -> str:
    neg = v < 0
    mag = -v if neg else v
    if conv in "di":
        digits = str(mag)
    elif conv == "u":
        digits = str(mag)
    elif conv == "o":
        digits = format(mag, "o")
    elif conv == "x":
        digits = format(mag, "x")
    else:
        digits = format(mag, "X")
    if prec is not None:
        digits = "" if prec == 0 and mag == 0 else digits.rjust(prec, "0")
    if "#" in flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and mag != 0:
            digits = ("0x" if conv == "x" else "0X") + digits
    sign = "-" if neg else ("+" if "+" in flags and conv in "di" else (" " if " " in flags and conv in "di" else ""))
    return sign + digits


def _float_text(x: float, conv: str, flags: str, prec: int | None) -> str:
    if math.isnan(x) or math.isinf(x):
        body = "nan" if math.isnan(x) else "inf"
        if conv in "FEGA":
            body = body.upper()
        sign = "-" if math.copysign(1.0, x) < 0 and not math.isnan(x) else ("+" if "+" in flags else (" " if " " in flags else ""))
        return sign + body
    if conv in "aA":
        h = float(x).hex()  # '-0x1.8000000000000p+1'
        m = re.match(r"(-?)0x([01])\.?([0-9a-f]*)p([+-]\d+)", h)
        if m:
            frac = m.group(3).rstrip("0") if prec is None else m.group(3)[:prec].ljust(prec, "0")
            h = f"{m.group(1)}0x{m.group(2)}{'.' + frac if frac or '#' in flags else ''}p{m.group(4)}"
        return h.upper() if conv == "A" else h
    py_flags = "".join(c for c in flags if c in "+ #")
    spec = "%" + py_flags + ("" if prec is None else f".{prec}") + conv
    return spec % x


def format_printf(fmt: bytes, args: Sequence, read_string: Callable[[int, int | None], bytes],
                  long_bits: int = 64) -> bytes:
    """Format like C's printf. ``args`` are the promoted argument values (ints,
    floats, pointers as ints); ``read_string(addr, max)`` reads a C string."""
    out: list[bytes] = []
    pos = 0
    ai = 0

    def next_arg():
        nonlocal ai
        if ai >= len(args):
            raise FormatError("too few arguments for the format")
        a = args[ai]
        ai += 1
        return a

    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags = m.group(1).decode()
        w = m.group(2)
        p = m.group(3)
        length = m.group(4)
        conv = m.group(5).decode()
        if conv == "%":
            out.append(b"%")
            continue
        width: int | None = None
        if w == b"*":
            width = int(next_arg())
            if width < 0:
                flags += "-"
                width = -width
        elif w:
            width = int(w)
        prec: int | None = None
        if p is not None:
            if p == b"*":
                prec = int(next_arg())
                if prec < 0:
                    prec = None
            else:
                prec = int(p or b"0")
        if conv == "n":
            raise FormatError("%n is not supported")
        a = next_arg()
        if conv in "diouxX":
            bits = _bits(length, long_bits)
            v = int(a) & ((1 << bits) - 1)
            if conv in "di" and v >> (bits - 1):
                v -= 1 << bits
            body = _int_text(v, conv, flags, prec)
            out.append(_pad(body, flags, width, prec is None).encode())
        elif conv in "eEfFgGaA":
            body = _float_text(float(a), conv, flags, prec)
            out.append(_pad(body, flags, width, not (math.isnan(float(a)) or math.isinf(float(a)))).encode())
        elif conv == "c":
            ch = bytes([int(a) & 0xFF])
            out.append(_pad(ch.decode("latin-1"), flags, width, False).encode("latin-1"))
        elif conv == "s":
            s = read_string(int(a), prec) if int(a) != 0 else b"(null)"
            if prec is not None:
                s = s[:prec]
            out.append(_pad(s.decode("latin-1"), flags, width, False).encode("latin-1"))
        elif conv == "p":
            v = int(a)
            body = "(nil)" if v == 0 else f"0x{v:x}"
            out.append(_pad(body, flags, width, False).encode())
    out.append(fmt[pos:])
    return b"".join(out)
