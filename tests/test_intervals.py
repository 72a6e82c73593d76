"""When the integer reading of a path cannot wrap around (``semantics/intervals.py``):
the claim is checked on every model of small bit vectors, against ``bv2int``'s reading."""

from __future__ import annotations

import itertools

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from tracelearn.semantics.bv2int import BvToInt
from tracelearn.semantics.intervals import WRAPPING, WrapCheck, cannot_wrap
from tracelearn.z3dag import applications

W = 4
X, Y = z3.BitVecs("x y", W)


def test_a_chain_of_subtractions_bounded_by_its_conditions_cannot_wrap():
    m, n = z3.BitVecs("m n", 32)
    # Euclid's steps: n > m > 0, then n - m >= m, then n - 2m <= 0 (z3 keeps 2*m apart)
    path = [z3.Not(m <= 0), z3.Not(n <= 0), z3.Not(z3.Not(m <= n)), z3.Not(n - m <= 0),
            z3.Not(z3.Not(m <= n - m)), n - 2 * m <= 0]
    assert cannot_wrap(path)
    assert not cannot_wrap([z3.Not(m <= 0), m + 1 > m])  # m = INT_MAX wraps
    assert cannot_wrap([m < 100, m > -100, m * 3 + 1 > 0])


def test_a_disequality_whose_term_may_wrap_is_the_one_suspect():
    m, n = z3.BitVecs("m n", 32)
    path = [z3.Not(m <= 0), z3.Not(n <= 0), m < 50, n < 50, z3.Not(m == 1056139500 * n)]
    assert WrapCheck().suspects(path) == [4]
    assert cannot_wrap(path[:4])


def test_conditions_with_no_model_cannot_wrap():
    assert cannot_wrap([X > 3, X < 2, X + Y > 0])


def _signed(v: int) -> int:
    return v - (1 << W) if v >> (W - 1) else v


terms = st.recursive(
    st.sampled_from([X, Y]) | st.integers(-8, 7).map(lambda c: z3.BitVecVal(c, W)),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda p: p[0] + p[1]),
        st.tuples(inner, inner).map(lambda p: p[0] - p[1]),
        inner.map(lambda t: -t),
        st.tuples(inner, st.integers(-3, 3)).map(lambda p: p[0] * p[1]),
        inner.map(lambda t: z3.SignExt(2, z3.Extract(1, 0, t))),  # a narrowing cast and back
        inner.map(lambda t: z3.ZeroExt(2, z3.Extract(1, 0, t))),
    ),
    max_leaves=4,
)
comparisons = st.tuples(terms, terms, st.sampled_from(["<", "<=", "==", "!=", ">"])).map(
    lambda p: {"<": p[0] < p[1], "<=": p[0] <= p[1], "==": p[0] == p[1], "!=": p[0] != p[1],
               ">": p[0] > p[1]}[p[2]])


bounds = st.tuples(st.integers(-8, 7), st.integers(0, 6)).map(lambda p: (p[0], min(7, p[0] + p[1])))


@settings(max_examples=150, deadline=None)
@given(bounds, bounds, st.lists(comparisons, min_size=1, max_size=4))
def test_where_no_term_is_suspected_every_model_reads_the_same_over_the_integers(bx, by, conditions):
    """The claim itself: in every 4-bit model of the conditions, each term that may
    wrap reads over the integers (nothing wrapping) as its bit-vector value does."""
    formulas = [X >= bx[0], X <= bx[1], Y >= by[0], Y <= by[1]] + [z3.simplify(f) for f in conditions]
    if WrapCheck().suspects(formulas):
        return
    tr = BvToInt(X.ctx, relaxed=True)
    apps = applications(formulas, WRAPPING)
    xi, yi = z3.Int("x"), z3.Int("y")
    for a, b in itertools.product(range(1 << W), repeat=2):
        bv = [(X, z3.BitVecVal(a, W)), (Y, z3.BitVecVal(b, W))]
        if not all(z3.is_true(z3.simplify(z3.substitute(f, *bv))) for f in formulas):
            continue
        ints = [(xi, z3.IntVal(_signed(a))), (yi, z3.IntVal(_signed(b)))]
        for t in apps:
            value = z3.simplify(z3.substitute(t, *bv)).as_signed_long()
            assert z3.simplify(z3.substitute(tr.term(t), *ints)).as_long() == value, (t, a, b)
