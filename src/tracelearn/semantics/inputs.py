"""Sources of nondeterministic values (the inputs of a run)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from ..ir.program import SourceLoc
from ..errors import OptionError
from ..ir.types import ArrayType, CType, FloatType, IntType, PointerType
from ..ir.values import round_f32
from .layout import INVALID_BASE, INVALID_SIZE
from .memory import encode


@dataclass
class InputRecord:
    index: int
    origin: str
    loc: SourceLoc
    type: str
    value: int | float | bytes

    def to_json(self) -> dict:
        v = self.value.hex() if isinstance(self.value, bytes) else self.value
        return {"index": self.index, "origin": self.origin, "loc": str(self.loc), "type": self.type, "value": v}


@dataclass
class InputSource:
    """Given values first (in order), then random values from ``seed``.

    ``strategy`` "mixed" favours small and boundary values (good at finding bugs);
    "uniform" draws uniformly from each type (what statistical sampling needs);
    "zero" gives zero (the null pointer, 0.0, zero bytes): CREST's new inputs.

    ``hints``: values to try after ``values``, each kept only where it fits the input
    read there (its type, its range); otherwise one is drawn (a concolic tester's
    values of the last run, whose read sites may differ past the flipped decision)."""

    values: list = field(default_factory=list)
    seed: int = 0
    strategy: str = "mixed"
    consumed: list[InputRecord] = field(default_factory=list)
    hints: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._pos = 0

    def next(self, t: CType, origin: str, loc: SourceLoc):
        if self._pos < len(self.values):
            v = self._coerce(t, self.values[self._pos])
            self._pos += 1
        else:
            v = self._hint(t)
            if v is None:
                v = self._random(t)
        self.consumed.append(InputRecord(len(self.consumed), origin, loc, str(t), v))
        return v

    def next_in_range(self, t: IntType, lo: int, hi: int, origin: str, loc: SourceLoc) -> int | None:
        """An input constrained to [lo, hi] (e.g. getchar's -1..255); a given value
        outside the range makes the run infeasible (None)."""
        if self._pos < len(self.values):
            v = self._coerce(t, self.values[self._pos])
            self._pos += 1
        elif (h := self._hint(t)) is not None and lo <= h <= hi:
            v = h
        else:
            v = (max(lo, min(0, hi)) if self.strategy == "zero"
                 else self._rng.randint(lo, hi) if self._rng.random() < 0.7 else self._rng.choice([lo, hi]))
        self.consumed.append(InputRecord(len(self.consumed), origin, loc, str(t), v))
        return v if lo <= v <= hi else None

    def _hint(self, t: CType):
        """The hint for this read, if there is one and it fits ``t``."""
        i = len(self.consumed) - len(self.values)
        if not 0 <= i < len(self.hints):
            return None
        try:
            return coerce_input(t, self.hints[i])
        except (ValueError, OverflowError, TypeError):
            return None

    def _coerce(self, t: CType, v):
        try:
            return coerce_input(t, v)
        except (ValueError, OverflowError, TypeError) as e:
            raise OptionError(f"input #{self._pos + 1} ({v!r}) does not fit {t}: {e}") from None

    def _random(self, t: CType):
        if self.strategy == "zero":
            return coerce_input(t, 0) if isinstance(t, (IntType, PointerType, FloatType)) else bytes(t.size)
        r = self._rng
        if isinstance(t, IntType):
            if t.is_bool:
                return r.randint(0, 1)
            if self.strategy == "mixed" and r.random() < 0.5:
                choices = [0, 1, -1, 2, t.min, t.max, r.randint(-16, 16), r.randint(-1000, 1000)]
                return t.wrap(r.choice(choices))
            return r.randint(t.min, t.max)
        if isinstance(t, PointerType):
            return 0 if r.random() < 0.5 else INVALID_BASE + r.randrange(0, INVALID_SIZE, 8)
        if isinstance(t, FloatType):
            if self.strategy == "mixed" and r.random() < 0.5:
                x = r.choice([0.0, 1.0, -1.0, 0.5, r.uniform(-100, 100)])
            else:
                x = r.uniform(-1e6, 1e6)
            return round_f32(x) if t.width == 32 else x
        return bytes(r.getrandbits(8) for _ in range(t.size))


def coerce_input(t: CType, v):
    """A given input value as a value of type ``t``.

    Integers take ints (and integral floats); floats take any number, NaN and the
    infinities included; arrays and other objects take their bytes (``bytes``, a hex
    string) or a list of element values."""
    if isinstance(t, IntType):
        if isinstance(v, float):
            if not math.isfinite(v) or v != int(v):
                raise ValueError(f"{v} is not an integer")
            v = int(v)
        if isinstance(v, (bytes, list)):
            raise ValueError("an integer is expected")
        return t.wrap(int(v))
    if isinstance(t, PointerType):
        if isinstance(v, float) or isinstance(v, (bytes, list)):
            raise ValueError("an address (integer) is expected")
        return int(v) & ((1 << t.width) - 1)
    if isinstance(t, FloatType):
        if isinstance(v, (bytes, list)):
            raise ValueError("a number is expected")
        x = float(v)
        return round_f32(x) if t.width == 32 else x
    if isinstance(v, list):
        if not isinstance(t, ArrayType) or not t.elem.is_scalar():
            raise ValueError("a list of values fits only an array of scalars")
        b = b"".join(encode(t.elem, coerce_input(t.elem, x)) for x in v)
    elif isinstance(v, (bytes, bytearray)):
        b = bytes(v)
    elif isinstance(v, str):
        b = bytes.fromhex(v)
    elif isinstance(v, float):
        raise ValueError("bytes or a list of values are expected")
    else:
        b = int(v).to_bytes(t.size, "little", signed=int(v) < 0)
    return (b + bytes(t.size))[: t.size]
