"""C's implicit conversions, made explicit in the IR (C11 6.3)."""

from __future__ import annotations

from ..ir import concrete
from ..ir.datamodel import StdTypes
from ..ir.expr import AddrOf, Binary, Cast, Const, Expr
from ..ir.types import CType, FloatType, FunctionType, IntType, PointerType, StructType, VoidType


def same_repr(a: CType, b: CType) -> bool:
    """Same bits and same operations: no conversion needed between them."""
    if isinstance(a, IntType) and isinstance(b, IntType):
        return a.width == b.width and a.signed == b.signed and a.is_bool == b.is_bool
    if isinstance(a, FloatType) and isinstance(b, FloatType):
        return a.width == b.width
    if isinstance(a, PointerType) and isinstance(b, PointerType):
        return True
    return a is b or a == b


def promote(std: StdTypes, t: CType) -> CType:
    """Integer promotion: types ranked below int become int."""
    if isinstance(t, IntType) and (t.is_bool or t.width < 32):
        return std.int
    return t


def usual_arith(std: StdTypes, a: CType, b: CType) -> CType:
    if isinstance(a, FloatType) or isinstance(b, FloatType):
        wa = a.width if isinstance(a, FloatType) else 0
        wb = b.width if isinstance(b, FloatType) else 0
        return std.double if max(wa, wb) == 64 else std.float
    a = promote(std, a)
    b = promote(std, b)
    assert isinstance(a, IntType) and isinstance(b, IntType)
    if a.width == b.width and a.signed == b.signed:
        return a if std.rank(a) >= std.rank(b) else b
    if a.signed == b.signed:
        return a if std.rank(a) > std.rank(b) else b
    u, s = (a, b) if not a.signed else (b, a)
    if std.rank(u) >= std.rank(s):
        return u
    if s.width > u.width:
        return s
    return IntType(s.width, False, "unsigned " + s.name)


def fold(e: Expr) -> Expr:
    """Evaluate an expression whose operands are all constants."""
    try:
        if isinstance(e, Cast) and isinstance(e.a, Const) and e.type.is_scalar() and e.a.type.is_scalar():
            return Const(e.type, concrete.cast(e.type, e.a.type, e.a.value))
        if isinstance(e, Binary) and isinstance(e.a, Const) and isinstance(e.b, Const):
            return Const(e.type, concrete.binary(e.op, e.type, e.a.value, e.b.value, e.optype))
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return e
    return e


def convert(std: StdTypes, e: Expr, to: CType) -> Expr:
    """Convert an rvalue to type ``to`` as assignment/cast does."""
    frm = e.type
    if isinstance(to, VoidType):
        return e
    if isinstance(to, IntType) and to.is_bool:
        if isinstance(frm, IntType) and frm.is_bool:
            return e
        return fold(Cast(to, to_truth(std, e)))
    if same_repr(frm, to):
        if isinstance(e, Const):
            return Const(to, e.value)
        if isinstance(frm, PointerType) and frm != to:
            return retype_pointer(e, to)
        return e
    if isinstance(to, (StructType,)) or isinstance(frm, (StructType,)):
        return e
    if isinstance(frm, FunctionType):
        return e
    return fold(Cast(to, e))


def retype_pointer(e: Expr, to: CType) -> Expr:
    """Same address, another pointer type (engines ignore pointee types)."""
    if isinstance(e, AddrOf):
        return AddrOf(e.name, to, e.scope)
    if isinstance(e, Cast) and isinstance(e.a.type, PointerType):
        return Cast(to, e.a)
    if isinstance(e, Const):
        return Const(to, e.value)
    if isinstance(e, Binary) and e.op in ("add", "sub") and isinstance(e.type, PointerType):
        return Binary(e.op, to, e.a, e.b)
    return Cast(to, e)


def to_truth(std: StdTypes, e: Expr) -> Expr:
    """``e != 0`` as an int 0/1 (comparisons already are)."""
    if isinstance(e, Binary) and e.op in ("eq", "ne", "lt", "le", "gt", "ge"):
        return e
    t = e.type
    zero: Const = Const(t, 0.0) if isinstance(t, FloatType) else Const(t, 0)
    return fold(Binary("ne", std.int, e, zero, t))


def negate_truth(std: StdTypes, e: Expr) -> Expr:
    """``!e`` as an int 0/1."""
    inv = {"eq": "ne", "ne": "eq", "lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}
    if isinstance(e, Binary) and e.op in inv and not isinstance(e.optype, FloatType):
        return Binary(inv[e.op], e.type, e.a, e.b, e.optype)
    t = e.type
    zero: Const = Const(t, 0.0) if isinstance(t, FloatType) else Const(t, 0)
    return fold(Binary("eq", std.int, e, zero, t))
