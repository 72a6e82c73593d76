"""z3 encodings of IR operators: the symbolic mirror of ``ir.concrete``.

Integers and pointers are bit-vectors of their width; floats are z3 floating
point (round-to-nearest-even); aggregates are bit-vector blobs of 8*size bits.
"""

from __future__ import annotations

import z3
from z3 import z3core as C

from ..ir.types import CType, FloatType, IntType, PointerType
from ..ir.values import float_to_bits
from ..z3dag import lit_false, lit_true

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
        if lit_false(t):
            return z3.BoolVal(False)
        if not lit_true(t):
            parts.append(t)
    if not parts:
        return z3.BoolVal(True)
    return parts[0] if len(parts) == 1 else z3.And(*parts)


def disj(*terms: z3.BoolRef) -> z3.BoolRef:
    """The disjunction, with literal false dropped and literal true absorbing."""
    parts = []
    for t in terms:
        if lit_true(t):
            return z3.BoolVal(True)
        if not lit_false(t):
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


class SignExtFolds:
    """What ``fold_sign_ext`` found, kept across calls on terms that share subterms:
    by AST id, the folded term, or None for a subterm with nothing to fold. The terms
    walked are kept, and with them every subterm: an id is not reused while its term
    lives."""

    def __init__(self) -> None:
        self.done: dict[int, z3.ExprRef | None] = {}
        self.kept: list[z3.ExprRef] = []

    def clear(self) -> None:
        self.done.clear()
        self.kept.clear()


def fold_sign_ext(e: z3.ExprRef, folds: SignExtFolds | None = None) -> z3.ExprRef:
    """z3's simplifier writes a sign extension as a concat of the sign bit's extracts:
    fold it back (so that terms read back from the semantics stay small). The walk is
    over raw ASTs (C calls; a Python wrapper per node cost more than the rest of a
    filter's learning): wrappers only for what changes."""
    folds = SignExtFolds() if folds is None else folds
    folds.kept.append(e)
    ctx_obj = e.ctx
    ctx = e.ctx_ref()
    done = folds.done

    def extract_bit(a, hb: int, base: int) -> bool:
        """Is raw ``a`` extract(hb, hb) of the term with id ``base``?"""
        if C.Z3_get_ast_kind(ctx, a) != z3.Z3_APP_AST:
            return False
        app = C.Z3_to_app(ctx, a)
        d = C.Z3_get_app_decl(ctx, app)
        return (C.Z3_get_decl_kind(ctx, d) == z3.Z3_OP_EXTRACT
                and C.Z3_get_decl_int_parameter(ctx, d, 0) == hb == C.Z3_get_decl_int_parameter(ctx, d, 1)
                and C.Z3_get_ast_id(ctx, C.Z3_get_app_arg(ctx, app, 0)) == base)

    def go(a) -> z3.ExprRef | None:
        """The folded term of raw ``a``, None when it is ``a`` itself."""
        key = C.Z3_get_ast_id(ctx, a)
        if key in done:
            return done[key]
        r = None
        if C.Z3_get_ast_kind(ctx, a) == z3.Z3_APP_AST:
            app = C.Z3_to_app(ctx, a)
            n = C.Z3_get_app_num_args(ctx, app)
            args = [C.Z3_get_app_arg(ctx, app, i) for i in range(n)]
            decl = C.Z3_get_app_decl(ctx, app)
            if n > 1 and C.Z3_get_decl_kind(ctx, decl) == z3.Z3_OP_CONCAT:
                x = args[-1]
                sort = C.Z3_get_sort(ctx, x)
                if C.Z3_get_sort_kind(ctx, sort) == z3.Z3_BV_SORT:
                    hb = C.Z3_get_bv_sort_size(ctx, sort) - 1
                    # the low part is x itself, or x's low bits taken out of a wider y
                    base = x
                    if C.Z3_get_ast_kind(ctx, x) == z3.Z3_APP_AST:
                        xa = C.Z3_to_app(ctx, x)
                        xd = C.Z3_get_app_decl(ctx, xa)
                        low = C.Z3_get_decl_kind(ctx, xd) == z3.Z3_OP_EXTRACT
                        if low and C.Z3_get_decl_int_parameter(ctx, xd, 1) == 0:
                            base = C.Z3_get_app_arg(ctx, xa, 0)
                    base_id = C.Z3_get_ast_id(ctx, base)
                    if all(extract_bit(c, hb, base_id) for c in args[:-1]):
                        fx = go(x)
                        r = z3.SignExt(n - 1, fx if fx is not None else z3.z3._to_expr_ref(x, ctx_obj))
            if r is None and n:
                new = [go(c) for c in args]
                if any(v is not None for v in new):
                    raw = [v.as_ast() if v is not None else c for v, c in zip(new, args)]
                    r = z3.z3._to_expr_ref(C.Z3_mk_app(ctx, decl, n, (z3.Ast * n)(*raw)), ctx_obj)
        done[key] = r
        return r

    r = go(e.as_ast())
    return e if r is None else r


def drop_implied_bits(e: z3.ExprRef) -> z3.ExprRef:
    """z3's simplifier splits ``sign_extend(x) == C`` into ``x == c && extract(i, i, x)
    == b``, where the second conjunct follows from the first: drop it (a guard over a
    sign-extended element reads ``x == c`` again). Only And nodes change; a conjunct
    that contradicts ``x == c`` is kept (the solver sees the conjunction false)."""
    done: dict[int, z3.ExprRef] = {}

    def value_of(eq: z3.ExprRef) -> tuple[z3.ExprRef, z3.ExprRef] | None:
        if not z3.is_eq(eq):
            return None
        a, b = eq.arg(0), eq.arg(1)
        if z3.is_bv_value(a):
            a, b = b, a
        return (a, b) if z3.is_bv_value(b) else None

    def implied(c: z3.ExprRef, known: dict[int, tuple[z3.ExprRef, int]]) -> bool:
        pair = value_of(c)
        if pair is None or not z3.is_app_of(pair[0], z3.Z3_OP_EXTRACT):
            return False
        hi, lo = pair[0].params()
        hit = known.get(pair[0].arg(0).get_id())
        return hit is not None and (hit[1] >> lo) & ((1 << (hi - lo + 1)) - 1) == pair[1].as_long()

    def go(t: z3.ExprRef) -> z3.ExprRef:
        hit = done.get(t.get_id())
        if hit is not None:
            return hit
        r = t
        if z3.is_app(t) and t.num_args() and (z3.is_and(t) or z3.is_or(t) or z3.is_not(t)):
            args = [go(a) for a in t.children()]
            if z3.is_and(t):
                known = {}
                for a in args:
                    pair = value_of(a)
                    if pair is not None and z3.is_const(pair[0]):
                        known[pair[0].get_id()] = (pair[0], pair[1].as_long())
                kept = [a for a in args if not implied(a, known)]
                r = kept[0] if len(kept) == 1 else z3.And(*kept)
            elif any(not x.eq(y) for x, y in zip(args, t.children())):
                r = z3.Or(*args) if z3.is_or(t) else z3.Not(args[0])
        done[t.get_id()] = r
        return r

    return go(e)
