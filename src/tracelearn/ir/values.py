"""Concrete value helpers shared by the frontend's constant folding and the engines."""

from __future__ import annotations

import math
import struct


def round_f32(x: float) -> float:
    """Round a double to the nearest float32 (ties to even), as C does on a float store."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        # Beyond FLT_MAX: round-to-nearest gives infinity unless within half an ulp.
        if abs(x) < 3.4028235677973366e38:
            return math.copysign(3.4028234663852886e38, x)
        return math.copysign(math.inf, x)


def float_to_bits(x: float, width: int) -> int:
    if width == 32:
        return struct.unpack("<I", struct.pack("<f", round_f32(x)))[0]
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def bits_to_float(b: int, width: int) -> float:
    if width == 32:
        return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]
    return struct.unpack("<d", struct.pack("<Q", b & 0xFFFFFFFFFFFFFFFF))[0]
