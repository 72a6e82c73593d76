"""Typed, bit-precise, side-effect-free IR expressions.

Operands of a ``Binary`` already have the operation's type (the frontend inserted
every conversion); comparisons carry their operand type in ``optype`` and yield
``int`` 0/1. Pointers are addresses: pointer arithmetic is already scaled.
"""

from __future__ import annotations

from dataclasses import dataclass

from .types import CType

# Binary operators. Division, remainder, shifts and comparisons take signedness
# from the operand type; floats use IEEE semantics with round-to-nearest-even.
ARITH_OPS = ("add", "sub", "mul", "div", "rem", "shl", "shr", "and", "or", "xor")
CMP_OPS = ("eq", "ne", "lt", "le", "gt", "ge")
# Checks: 1 if the signed sum, difference or product of the operands (of type
# ``optype``) fits it, computed exactly. Operators, not bit tricks on the wrapped
# result: the symbolic semantics gives each the form its solvers handle best (one
# extra bit for a sum, z3's overflow circuit for a product), and the integer
# translation of Horn clauses reads a sum's check as plain arithmetic.
CHECK_OPS = ("sadd_ok", "ssub_ok", "smul_ok")
UNARY_OPS = ("neg", "not")  # "not" is bitwise ~; logical ! is a comparison with 0


class Expr:
    type: CType

    def children(self) -> tuple["Expr", ...]:
        return ()


@dataclass(frozen=True)
class Const(Expr):
    type: CType
    value: int | float  # ints already wrapped into the type's range


@dataclass(frozen=True)
class Reg(Expr):
    """A variable held in a register: a scalar whose address is never taken.

    ``scope`` is ``"local"`` (of the current procedure) or ``"global"``.
    """

    name: str
    type: CType
    scope: str = "local"


@dataclass(frozen=True)
class AddrOf(Expr):
    """Base address of a memory object (a variable, string literal or function)."""

    name: str
    type: CType  # pointer type
    scope: str = "local"  # "local", "global" or "function"


@dataclass(frozen=True)
class Load(Expr):
    """Read ``type`` from memory at ``addr``: checked for validity by the engines."""

    type: CType
    addr: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.addr,)


@dataclass(frozen=True)
class Unary(Expr):
    op: str
    type: CType
    a: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)


@dataclass(frozen=True)
class Binary(Expr):
    op: str
    type: CType  # result type (int for comparisons)
    a: Expr
    b: Expr
    optype: CType | None = None  # operand type of comparisons

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)


@dataclass(frozen=True)
class Cast(Expr):
    """Conversion between scalar types: int<->int (wrap), int<->float, float<->float,
    int<->pointer. Conversion to _Bool is a comparison, never a ``Cast``."""

    type: CType
    a: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)


def walk(e: Expr):
    """All subexpressions, pre-order."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(x.children())
