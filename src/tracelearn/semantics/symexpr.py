"""z3 encodings of IR operators: the symbolic mirror of ``ir.concrete``.

Integers and pointers are bit-vectors of their width; floats are z3 floating
point (round-to-nearest-even); aggregates are bit-vector blobs of 8*size bits.
"""

from __future__ import annotations

import z3

from ..ir.types import CType, FloatType, IntType, PointerType
from ..ir.values import float_to_bits

RNE = z3.RNE()
RTZ = z3.RTZ()


def sort_of(t: CType) -> z3.SortRef:
    if isinstance(t, FloatType):
        return z3.FPSort(t.ebits, t.sbits)
    if isinstance(t, (IntType, PointerType)):
        return z3.BitVecSort(t.width)
    return z3.BitVecSort(max(t.size, 1) * 8)


def const(t: CType, value) -> z3.ExprRef:
    if isinstance(t, FloatType):
        return z3.fpBVToFP(z3.BitVecVal(float_to_bits(float(value), t.width), t.width), sort_of(t))
    if isinstance(t, (IntType, PointerType)):
        return z3.BitVecVal(int(value) & ((1 << t.width) - 1), t.width)
    # Aggregate constants are all-zero (the frontend only makes zero aggregates).
    return z3.BitVecVal(0, max(t.size, 1) * 8)


def fresh(name: str, t: CType) -> z3.ExprRef:
    return z3.Const(name, sort_of(t))


_ONE, _ZERO = z3.BitVecVal(1, 32), z3.BitVecVal(0, 32)


def bool_to_int(c: z3.BoolRef) -> z3.BitVecRef:
    return z3.If(c, _ONE, _ZERO)


def conj(*terms: z3.BoolRef) -> z3.BoolRef:
    """The conjunction, with literal true dropped and literal false absorbing: a path
    whose guard became false is seen without a simplifier call."""
    parts = []
    for t in terms:
        if z3.is_false(t):
            return z3.BoolVal(False)
        if not z3.is_true(t):
            parts.append(t)
    if not parts:
        return z3.BoolVal(True)
    return parts[0] if len(parts) == 1 else z3.And(*parts)


def disj(*terms: z3.BoolRef) -> z3.BoolRef:
    """The disjunction, with literal false dropped and literal true absorbing."""
    parts = []
    for t in terms:
        if z3.is_true(t):
            return z3.BoolVal(True)
        if not z3.is_false(t):
            parts.append(t)
    if not parts:
        return z3.BoolVal(False)
    return parts[0] if len(parts) == 1 else z3.Or(*parts)


def truth(v: z3.ExprRef) -> z3.BoolRef:
    """``v != 0`` as a z3 Bool (a comparison result If(c,1,0) simplifies to c)."""
    if z3.is_bv_value(v):
        return z3.BoolVal(v.as_long() != 0)
    if z3.is_app_of(v, z3.Z3_OP_ITE):
        a, b, c = v.arg(0), v.arg(1), v.arg(2)
        if z3.is_bv_value(b) and z3.is_bv_value(c) and b.as_long() == 1 and c.as_long() == 0:
            return a
    if z3.is_fp(v):
        return z3.Not(z3.fpIsZero(v))
    return v != 0


def signed_of(t: CType) -> bool:
    return isinstance(t, IntType) and t.signed


def compare(op: str, optype: CType, a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef:
    if isinstance(optype, FloatType):
        return {"eq": z3.fpEQ, "ne": lambda x, y: z3.Not(z3.fpEQ(x, y)), "lt": z3.fpLT,
                "le": z3.fpLEQ, "gt": z3.fpGT, "ge": z3.fpGEQ}[op](a, b)
    if op == "eq":
        return a == b
    if op == "ne":
        return a != b
    if signed_of(optype):  # one term built, not all four
        return {"lt": z3.BitVecRef.__lt__, "le": z3.BitVecRef.__le__, "gt": z3.BitVecRef.__gt__,
                "ge": z3.BitVecRef.__ge__}[op](a, b)
    return {"lt": z3.ULT, "le": z3.ULE, "gt": z3.UGT, "ge": z3.UGE}[op](a, b)


def binary(op: str, t: CType, a: z3.ExprRef, b: z3.ExprRef, optype: CType | None) -> z3.ExprRef:
    if op in ("eq", "ne", "lt", "le", "gt", "ge"):
        return bool_to_int(compare(op, optype or t, a, b))
    if op == "smul_ok":
        return bool_to_int(z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)))
    if op in ("sadd_ok", "ssub_ok"):  # exact in one more bit
        w = a.size()
        x, y = z3.SignExt(1, a), z3.SignExt(1, b)
        r = x + y if op == "sadd_ok" else x - y
        lo, hi = z3.BitVecVal(-(1 << (w - 1)), w + 1), z3.BitVecVal((1 << (w - 1)) - 1, w + 1)
        return bool_to_int(z3.And(lo <= r, r <= hi))
    if isinstance(t, FloatType):
        return {"add": lambda: z3.fpAdd(RNE, a, b), "sub": lambda: z3.fpSub(RNE, a, b),
                "mul": lambda: z3.fpMul(RNE, a, b), "div": lambda: z3.fpDiv(RNE, a, b)}[op]()
    s = signed_of(t)
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":
        return a / b if s else z3.UDiv(a, b)
    if op == "rem":
        return z3.SRem(a, b) if s else z3.URem(a, b)
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    if op == "shl":
        return a << b
    if op == "shr":
        return a >> b if s else z3.LShR(a, b)
    raise ValueError(op)


def unary(op: str, t: CType, a: z3.ExprRef) -> z3.ExprRef:
    if isinstance(t, FloatType):
        return z3.fpNeg(a)
    return -a if op == "neg" else ~a


def resize(a: z3.BitVecRef, frm_bits: int, to_bits: int, signed: bool) -> z3.BitVecRef:
    if to_bits == frm_bits:
        return a
    if to_bits < frm_bits:
        return z3.Extract(to_bits - 1, 0, a)
    return z3.SignExt(to_bits - frm_bits, a) if signed else z3.ZeroExt(to_bits - frm_bits, a)


def cast(to: CType, frm: CType, a: z3.ExprRef) -> z3.ExprRef:
    if isinstance(to, FloatType):
        if isinstance(frm, FloatType):
            return a if frm.width == to.width else z3.fpFPToFP(RNE, a, sort_of(to))
        if signed_of(frm):
            return z3.fpSignedToFP(RNE, a, sort_of(to))
        return z3.fpUnsignedToFP(RNE, a, sort_of(to))
    if not isinstance(to, (IntType, PointerType)):
        return a
    width = to.width
    if isinstance(frm, FloatType):
        if isinstance(to, IntType) and to.is_bool:
            return z3.If(z3.fpIsZero(a), z3.BitVecVal(0, 8), z3.BitVecVal(1, 8))
        s = signed_of(to)
        lo, hi = ((-(1 << (width - 1)), (1 << (width - 1)) - 1) if s else (0, (1 << width) - 1))
        tr = z3.fpRoundToIntegral(RTZ, a)
        big = z3.FPSort(15, 113)  # wide enough to hold any 64-bit bound exactly
        in_range = z3.And(
            z3.Not(z3.fpIsNaN(a)), z3.Not(z3.fpIsInf(a)),
            z3.fpGEQ(z3.fpFPToFP(RNE, tr, big), z3.FPVal(lo, big)),
            z3.fpLEQ(z3.fpFPToFP(RNE, tr, big), z3.FPVal(hi, big)),
        )
        conv = z3.fpToSBV(RTZ, a, z3.BitVecSort(width)) if s else z3.fpToUBV(RTZ, a, z3.BitVecSort(width))
        indef = z3.BitVecVal((1 << (width - 1)) if s else 0, width)
        return z3.If(in_range, conv, indef)
    if isinstance(to, IntType) and to.is_bool:
        return z3.If(a == 0, z3.BitVecVal(0, 8), z3.BitVecVal(1, 8))
    frm_bits = frm.width  # type: ignore[attr-defined]
    return resize(a, frm_bits, width, signed_of(frm))


def to_bits(t: CType, v: z3.ExprRef) -> z3.BitVecRef:
    """The bytes of a value as a bit-vector (floats: IEEE bits)."""
    if isinstance(t, FloatType):
        return z3.fpToIEEEBV(v)
    return v


def from_bits(t: CType, bv: z3.BitVecRef) -> z3.ExprRef:
    if isinstance(t, FloatType):
        return z3.fpBVToFP(bv, sort_of(t))
    return bv


def fold_sign_ext(e: z3.ExprRef, cache: dict[int, tuple[z3.ExprRef, z3.ExprRef]] | None = None) -> z3.ExprRef:
    """z3's simplifier writes a sign extension as a concat of the sign bit's extracts:
    fold it back (so that terms read back from the semantics stay small). ``cache``:
    terms folded already, by id (kept with the term: an id is not reused while its
    term lives), shared between calls on terms that share subterms."""
    cache = {} if cache is None else cache

    def go(t: z3.ExprRef) -> z3.ExprRef:
        hit = cache.get(t.get_id())
        if hit is not None:
            return hit[1]
        r = t
        if z3.is_app_of(t, z3.Z3_OP_CONCAT):
            ch = t.children()
            x = ch[-1]
            hb = x.size() - 1 if z3.is_bv(x) else -1
            # the low part is x itself, or x's low bits taken out of a wider y
            base = x.arg(0) if z3.is_app_of(x, z3.Z3_OP_EXTRACT) and x.params()[1] == 0 else x
            if hb >= 0 and all(z3.is_app_of(c, z3.Z3_OP_EXTRACT) and c.params() == [hb, hb]
                               and c.arg(0).eq(base) for c in ch[:-1]):
                r = z3.SignExt(len(ch) - 1, go(x))
        if r is t and z3.is_app(t) and t.num_args():
            new = [go(c) for c in t.children()]
            if any(not a.eq(b) for a, b in zip(new, t.children())):
                r = t.decl()(*new)
        cache[t.get_id()] = (t, r)
        return r
    return go(e)
