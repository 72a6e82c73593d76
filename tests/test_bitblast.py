"""The bit-blasted session answers as z3 does, with models of the original constraints."""

from __future__ import annotations

import random

import z3

from tracelearn.semantics.bitblast import BitBlastSession

F32 = z3.Float32()
F16 = z3.FloatHalf()  # the random formulas: small enough for z3 to answer each at once
RNE = z3.RNE()


def _term(rng: random.Random, xs: list[z3.BitVecRef], fs: list[z3.FPRef], depth: int) -> z3.BitVecRef:
    """A random 16-bit term over ints and half floats (conversions both ways, float bits)."""
    if depth == 0:
        pick = rng.randrange(3)
        if pick == 0:
            return rng.choice(xs)
        if pick == 1:
            return z3.BitVecVal(rng.choice([0, 1, 3, 100, -7, 2**15 - 1]), 16)
        return z3.fpToIEEEBV(rng.choice(fs))
    a, b = _term(rng, xs, fs, depth - 1), _term(rng, xs, fs, depth - 1)
    op = rng.randrange(7)
    if op == 0:
        return a + b
    if op == 1:
        return a * b
    if op == 2:
        return a ^ (b >> 3)
    if op == 3:
        return z3.If(z3.ULT(a, b), a, b - 1)
    if op == 4:  # through a float and back
        return z3.fpToSBV(z3.RTZ(), z3.fpAdd(RNE, z3.fpSignedToFP(RNE, a, F16), rng.choice(fs)), z3.BitVecSort(16))
    if op == 5:
        return z3.fpToIEEEBV(z3.fpMul(RNE, rng.choice(fs), z3.fpToFP(RNE, b, F16)))
    return z3.UDiv(a, b | 1)


def _atom(rng: random.Random, xs, fs, depth: int) -> z3.BoolRef:
    a, b = _term(rng, xs, fs, depth), _term(rng, xs, fs, depth)
    kind = rng.randrange(4)
    if kind == 0:
        return a == b
    if kind == 1:
        return z3.ULT(a, b)
    if kind == 2:
        return z3.fpLT(rng.choice(fs), z3.fpToFP(RNE, a, F16))
    return a < b


def _agree(source_constraints, assumptions_list, later=()) -> tuple[int, int]:
    """Every query answered as a fresh z3 solver answers it; sat models satisfy the source."""
    src = z3.Solver()
    src.add(*source_constraints)
    session = BitBlastSession(src)
    sats = unsats = 0
    for step, assumptions in enumerate(assumptions_list):
        if step == 1:
            src.add(*later)  # constraints added after the session started
        out = session.check(assumptions, None, None, None)
        assert out is not None, session.why_not
        r, model = out
        ref = z3.Solver()
        ref.add(src.assertions())
        ref.add(*assumptions)
        expected = ref.check()
        assert expected != z3.unknown
        assert r == expected
        if r == z3.sat:
            sats += 1
            for c in list(src.assertions()) + list(assumptions):
                assert z3.is_true(model.eval(c, model_completion=True)), c
        else:
            unsats += 1
    return sats, unsats


def test_random_formulas_with_floats_agree_with_z3():
    rng = random.Random(7)
    total_sat = total_unsat = 0
    for i in range(12):
        xs = [z3.BitVec(f"x{i}_{k}", 16) for k in range(3)]
        fs = [z3.FP(f"f{i}_{k}", F16) for k in range(2)]
        lits = [z3.Bool(f"a{i}_{k}") for k in range(4)]
        base = [z3.Implies(lit, _atom(rng, xs, fs, 2)) for lit in lits]
        base.append(_atom(rng, xs, fs, 1))
        base.append(z3.Implies(lits[3], xs[0] == 1000))  # against ``later``: lits 0 and 3 conflict
        later = [z3.Implies(lits[0], xs[0] == rng.randrange(50))]
        queries = [[lits[0]], [lits[0], lits[1]], [lits[1], lits[2], lits[3]], [lits[2], z3.Not(lits[0])], lits,
                   [lits[0], lits[3]]]
        s, u = _agree(base, queries, later)
        total_sat += s
        total_unsat += u
    assert total_sat >= 20 and total_unsat >= 12  # both answers exercised


def test_constraints_added_later_and_extra_scopes():
    x, y = z3.BitVecs("x y", 16)
    a, b = z3.Bools("a b")
    src = z3.Solver()
    src.add(z3.Implies(a, x + y == 10), z3.Implies(b, x == 3))
    session = BitBlastSession(src)
    r, m = session.check([a, b], None, None, None)
    assert r == z3.sat and m.eval(y).as_long() == 7
    src.add(z3.Implies(b, y == 8))  # taken over at the next check
    assert session.check([a, b], None, None, None)[0] == z3.unsat
    # an extra constraint holds for its query only
    r, m = session.check([a], [x == 9], None, None)
    assert r == z3.sat and m.eval(y).as_long() == 1
    r, m = session.check([a], None, None, None)
    assert r == z3.sat
    assert session.check([a], [x == 9, y == 2], None, None)[0] == z3.unsat
    assert session.usable


def test_float_model_values_come_back():
    f = z3.FP("f", F32)
    bits = z3.BitVec("bits", 32)
    a = z3.Bool("a")
    src = z3.Solver()
    src.add(bits == z3.fpToIEEEBV(f), z3.Implies(a, z3.fpEQ(z3.fpMul(RNE, f, f), z3.FPVal(2.25, F32))))
    session = BitBlastSession(src)
    r, m = session.check([a], None, None, None)
    assert r == z3.sat
    value = m.eval(f, model_completion=True)
    assert z3.is_true(z3.simplify(z3.Or(value == z3.FPVal(1.5, F32), value == z3.FPVal(-1.5, F32))))
    assert z3.is_true(m.eval(bits == z3.fpToIEEEBV(f), model_completion=True))


def test_a_float_added_later_ends_the_session():
    x = z3.BitVec("x", 32)
    f = z3.FP("g", F32)
    a = z3.Bool("a")
    src = z3.Solver()
    src.add(z3.Implies(a, x == 1))
    session = BitBlastSession(src)
    assert session.check([a], None, None, None)[0] == z3.sat
    # a float in one query's extra constraints: that query only goes elsewhere
    assert session.check([a], [z3.fpIsNaN(f)], None, None) is None and session.usable
    src.add(z3.fpGT(f, z3.FPVal(1.0, F32)))
    assert session.check([a], None, None, None) is None
    assert not session.usable and "bit-vector" in session.why_not
