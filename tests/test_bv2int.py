"""The integer translation of bit-vector clauses means the same: every operator it
translates, on random operands of several widths, gives the two's-complement value
of the bit-vector result (Hypothesis), and what it cannot translate exactly it refuses."""

from __future__ import annotations

import pytest
import z3
from hypothesis import given, settings, strategies as st

from tracelearn.semantics.bv2int import BvToInt, Untranslatable

WIDTHS = (1, 8, 16, 32)


def signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def ops(x, y, c: int, s: int):
    """Terms over variables x, y (and a nonzero constant c, a shift s)."""
    w = x.size()
    cv = z3.BitVecVal(c, w)
    out = {
        "add": x + y, "sub": x - y, "neg": -x, "not": ~x, "mulc": x * cv, "cmul": cv * x,
        "sdivc": x / cv, "sremc": z3.SRem(x, cv), "udivc": z3.UDiv(x, cv), "uremc": z3.URem(x, cv),
        "shl": x << s, "ashr": x >> s, "lshr": z3.LShR(x, s),
        "sext": z3.SignExt(8, x), "zext": z3.ZeroExt(8, x), "concat0": z3.Concat(z3.BitVecVal(0, 4), x),
        "concat": z3.Concat(x, y), "concat3": z3.Concat(y, x, cv), "top": z3.Extract(w - 1, w - 1, x),
        "middle": z3.Extract(w - 1, w // 2, x), "bytes": z3.Extract(w // 2, w // 4, z3.Concat(x, y)),
        "ite": z3.If(z3.ULT(x, y), x, y + 1),
        "mask": x & z3.BitVecVal(3, w) if w > 2 else x,
        "sum3": x + y + cv,
    }
    if w > 1:
        out["extract"] = z3.Extract(w - 2, 0, x)
    return out


def preds(x, y, c: int = 3):
    cv = z3.BitVecVal(c, x.size())
    return {"slt": x < y, "sle": x <= y, "ult": z3.ULT(x, y), "ule": z3.ULE(x, y), "ugt": z3.UGT(x, y),
            "eq": x == y, "ne": x != y,
            # the overflow checks of a product by a constant (`smul_ok`, `x * 3` in C)
            "smul_no_overflow": z3.BVMulNoOverflow(x, cv, True), "smul_no_underflow": z3.BVMulNoUnderflow(cv, x),
            "umul_no_overflow": z3.BVMulNoOverflow(x, cv, False)}


@settings(max_examples=150, deadline=None)
@given(w=st.sampled_from(WIDTHS), a=st.integers(), b=st.integers(), c=st.integers(), s=st.integers(0, 40))
def test_every_translated_operator_keeps_its_meaning(w, a, b, c, s):
    c = signed(c, w) or 1
    x, y = z3.BitVecs("x y", w)
    tr = BvToInt(z3.main_ctx())
    X, Y = z3.Ints("x y")
    av, bv = z3.BitVecVal(a, w), z3.BitVecVal(b, w)
    for name, term in ops(x, y, c, s % (w + 2)).items():
        want = z3.simplify(z3.substitute(term, (x, av), (y, bv)))
        got = z3.simplify(z3.substitute(tr.term(term), (X, z3.IntVal(signed(a, w))), (Y, z3.IntVal(signed(b, w)))))
        assert got.as_long() == signed(want.as_long(), want.size()), (name, w, a, b, c, s)
    for name, term in preds(x, y, c).items():
        want = z3.simplify(z3.substitute(term, (x, av), (y, bv)))
        got = z3.simplify(z3.substitute(tr.term(term), (X, z3.IntVal(signed(a, w))), (Y, z3.IntVal(signed(b, w)))))
        assert z3.is_true(got) == z3.is_true(want), (name, w, a, b)


@pytest.mark.parametrize("make", [
    lambda x, y: x * y,                      # a product of variables
    lambda x, y: x & y,                      # bitwise and of variables
    lambda x, y: x | y,
    lambda x, y: x << y,                     # a shift by a variable
    lambda x, y: x / y,                      # a division by a variable
    lambda x, y: z3.BVMulNoOverflow(x, y, True),  # the overflow check of a product of variables
])
def test_what_has_no_exact_linear_meaning_is_refused(make):
    x, y = z3.BitVecs("x y", 32)
    with pytest.raises(Untranslatable):
        BvToInt(z3.main_ctx()).term(make(x, y))


def test_quantified_clauses_range_their_variables():
    x = z3.BitVec("x", 8)
    p = z3.Function("p", z3.BitVecSort(8), z3.BoolSort())
    clause = z3.ForAll([x], z3.Implies(x + 1 == 0, p(x)))
    tr = BvToInt(z3.main_ctx())
    out = tr.clause(clause)
    assert z3.is_quantifier(out) and out.var_sort(0) == z3.IntSort()
    # x + 1 == 0 over 8 bits holds for x = -1 only, never for x = 255 (out of range)
    s = z3.SolverFor("HORN")
    s.add(out)
    q = tr.funcs["p"]
    s.add(z3.ForAll([z3.Int("y")], z3.Implies(q(z3.Int("y")), z3.Int("y") == -1)))
    assert s.check() == z3.sat
