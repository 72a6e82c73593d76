"""What the two engines' library models share: the input-order contract.

The interpreter (``native.py``) and the model checker (``symlib.py``, ``symbolic.py``)
model the same library calls and must draw the same inputs, in the same order and
the same shapes, or a counterexample would not replay. The constants and the format
parsing that decide those draws are written here once:

- ``argv`` of an entry with parameters: ``argc`` in [0, MAX_ARGC], then MAX_ARGC
  strings of ARGV_STRING bytes each (a NUL is added after each);
- ``scanf``-family: one input per conversion (``%s``: width or 15 bytes; the others:
  one value of :func:`scan_type`), in the order of the format;
- ``read(fd, buf, n)``: a count in [0, n], then n bytes (the first count are stored).
"""

from __future__ import annotations

import re

from ..ir.types import CType, FloatType, IntType

MAX_ARGC = 4
ARGV_STRING = 16  # bytes of each nondeterministic argv string (plus a NUL)
SCAN_STRING = 15  # bytes of a %s conversion without a width

_SCAN = re.compile(rb"%(\*)?(\d+)?(hh|h|ll|l|L|q|j|z|t)?([diouxXaAeEfFgGcs%])")


class Infeasible(Exception):
    """A given input the model cannot have produced (e.g. getchar() = 1000): the run is
    not one the program can make, and is dropped."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def scan_conversions(fmt: bytes) -> list[tuple[bytes, bytes | None, int | None]]:
    """(conversion, length modifier, width) of each conversion that stores a value."""
    out = []
    for m in _SCAN.finditer(fmt):
        if m.group(4) == b"%" or m.group(1):
            continue
        out.append((m.group(4), m.group(3), int(m.group(2)) if m.group(2) else None))
    return out


def scan_type(conv: bytes, length: bytes | None, long_bits: int, ptr_bits: int) -> CType:
    """The type a scanf conversion stores."""
    if conv in b"aAeEfFgG":
        return FloatType(64) if length in (b"l", b"L") else FloatType(32)
    if conv == b"c":
        return IntType(8, True)
    bits = {b"hh": 8, b"h": 16, b"l": long_bits, b"ll": 64, b"q": 64, b"j": 64,
            b"z": ptr_bits, b"t": ptr_bits}.get(length or b"", 32)
    return IntType(bits, conv in b"di")
