"""Concrete meaning of IR operators on Python values.

One definition used by the frontend's constant folding and by the interpreter; the
bounded model checker's z3 encoding mirrors it (and differential tests hold them
together). Integers are Python ints inside their type's range, pointers are
unsigned addresses, floats are Python floats already rounded to their width.

Choices where C leaves the result undefined (the engines report most of these
as failed checks first):
- signed overflow wraps (two's complement);
- ``x / 0`` and ``x % 0`` are checked before they run; INT_MIN / -1 wraps, rem 0;
- a shift by the width or more gives 0 (``>>`` of a negative value: -1), as
  SMT-LIB's bvshl/bvashr/bvlshr do;
- float to int out of range or NaN gives the "integer indefinite" of x86 (the
  minimum signed value) for signed targets and 0 for unsigned targets.
"""

from __future__ import annotations

import math

from .types import CType, FloatType, IntType, PointerType
from .values import round_f32


def int_bits(t: CType) -> int:
    if isinstance(t, (IntType, PointerType)):
        return t.width
    raise TypeError(t)


def wrap(t: CType, v: int) -> int:
    if isinstance(t, IntType):
        return t.wrap(v)
    if isinstance(t, PointerType):
        return v & ((1 << t.width) - 1)
    raise TypeError(t)


def signed_of(t: CType) -> bool:
    return isinstance(t, IntType) and t.signed


def _fdiv(a: float, b: float) -> float:
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        neg = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
        return -math.inf if neg else math.inf
    return a / b


def _fmul(a: float, b: float) -> float:
    try:
        return a * b
    except OverflowError:  # pragma: no cover - Python float mul does not raise
        return math.inf


def binary(op: str, t: CType, a, b, optype: CType | None = None):
    """Apply a binary IR operator. ``t`` is the result type (for comparisons the
    operand type is ``optype``)."""
    if op in ("sadd_ok", "ssub_ok", "smul_ok"):
        ot = optype or t
        exact = a + b if op == "sadd_ok" else a - b if op == "ssub_ok" else a * b
        return 1 if ot.min <= exact <= ot.max else 0
    if op in ("eq", "ne", "lt", "le", "gt", "ge"):
        ot = optype or t
        if isinstance(ot, IntType) and not ot.signed or isinstance(ot, PointerType):
            a &= (1 << int_bits(ot)) - 1
            b &= (1 << int_bits(ot)) - 1
        if op == "eq":
            r = a == b
        elif op == "ne":
            r = a != b
        elif op == "lt":
            r = a < b
        elif op == "le":
            r = a <= b
        elif op == "gt":
            r = a > b
        else:
            r = a >= b
        return 1 if r else 0
    if isinstance(t, FloatType):
        if op == "add":
            r = a + b
        elif op == "sub":
            r = a - b
        elif op == "mul":
            r = _fmul(a, b)
        elif op == "div":
            r = _fdiv(a, b)
        else:
            raise ValueError(f"operator {op} on {t}")
        return round_f32(r) if t.width == 32 else r
    width = int_bits(t)
    mask = (1 << width) - 1
    signed = signed_of(t)
    if op == "add":
        return wrap(t, a + b)
    if op == "sub":
        return wrap(t, a - b)
    if op == "mul":
        return wrap(t, a * b)
    if op in ("div", "rem"):
        if b == 0:
            raise ZeroDivisionError
        if not signed:
            a &= mask
            b &= mask
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        return wrap(t, q) if op == "div" else wrap(t, a - q * b)
    if op == "and":
        return wrap(t, a & b)
    if op == "or":
        return wrap(t, a | b)
    if op == "xor":
        return wrap(t, a ^ b)
    if op in ("shl", "shr"):
        count = b & mask
        if op == "shl":
            return 0 if count >= width else wrap(t, a << count)
        if signed:
            return (-1 if a < 0 else 0) if count >= width else a >> count
        return 0 if count >= width else (a & mask) >> count
    raise ValueError(f"unknown operator {op}")


def unary(op: str, t: CType, a):
    if isinstance(t, FloatType):
        if op == "neg":
            return -a
        raise ValueError(f"operator {op} on {t}")
    if op == "neg":
        return wrap(t, -a)
    if op == "not":
        return wrap(t, ~a)
    raise ValueError(f"unknown operator {op}")


def cast(to: CType, frm: CType, v):
    """Convert value ``v`` of type ``frm`` to type ``to`` (scalars only)."""
    if isinstance(to, FloatType):
        if isinstance(frm, FloatType):
            x = float(v)
        else:
            x = float(v & ((1 << int_bits(frm)) - 1)) if not signed_of(frm) else float(v)
        return round_f32(x) if to.width == 32 else x
    if isinstance(frm, FloatType):
        x = v
        width = int_bits(to)
        if isinstance(to, IntType) and to.is_bool:  # C11 6.3.1.2: compares unequal to 0 (NaN, inf too)
            return 1 if x != 0.0 else 0
        if math.isnan(x) or math.isinf(x):
            return wrap(to, -(1 << (width - 1))) if signed_of(to) else 0
        i = math.trunc(x)
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed_of(to) else (0, (1 << width) - 1)
        if i < lo or i > hi:
            return wrap(to, -(1 << (width - 1))) if signed_of(to) else 0
        return i
    if isinstance(to, IntType) and to.is_bool:
        return 1 if v != 0 else 0
    return wrap(to, v)
