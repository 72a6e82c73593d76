"""The integer reading of bit-vector path conditions (``semantics/linear.py``) and how
the sampler's path target uses it: a refutation only withholds effort (the answer stays
unknown, never unsat), an integer solution answers only once it holds on the bit
vectors, and a model that needs a wrap-around is still found when it is easy."""

from __future__ import annotations

import random

import z3
from hypothesis import given, settings, strategies as st

from tracelearn.semantics.bv2int import BvToInt
from tracelearn.semantics.linear import SMALL, LinearRelaxation
from tracelearn.semantics.targets import PathTarget

X, Y, Z = (z3.BitVec(n, 32) for n in "xyz")


def test_a_question_the_integers_refute_gets_no_more_effort_and_stays_unknown():
    t = PathTarget(None, rlimit=100)  # a first try too small for anything
    t.constrain(X > 0)
    t.constrain(X + 1 < 0)  # only a wrap-around satisfies it
    assert t.check() == z3.unknown
    assert t.linear.refuted == 1 and t.refuted_without_wrapping == 0
    t = PathTarget(None, rlimit=5_000_000)  # enough for the bit vectors: a real answer
    t.constrain(X > 0)
    t.constrain(X + 1 < 0)
    assert t.check() == z3.sat


def test_an_integer_refutation_where_nothing_can_wrap_is_the_answer_with_no_more_effort():
    t = PathTarget(None, rlimit=100)  # too small for the bit vectors
    t.constrain(X > 5)
    t.constrain(X < 100)
    t.constrain(X + 1 < 3)  # X + 1 cannot wrap: 5 < X < 100
    assert t.check() == z3.unsat
    assert t.refuted_without_wrapping == 1
    t = PathTarget(None, rlimit=100)
    t.constrain(X > 5)
    t.constrain(X + 1 < 3)  # X = INT_MAX: X + 1 wraps
    assert t.check() == z3.unknown and t.refuted_without_wrapping == 0


def test_an_integer_solution_answers_once_it_holds_on_the_bit_vectors():
    t = PathTarget(None, rlimit=10_000)  # a first try of 200: too small for the bit vectors
    for c in (X * 3 + Y * 5 == 101, X > 0, Y > 0, X < Y):
        t.constrain(c)
    assert t.check() == z3.sat and t.linear.solutions == 1
    m = t.model()
    assert all(z3.is_true(m.eval(c, model_completion=True)) for c in t.eq.constraints)


def test_a_model_only_a_wrap_around_gives_is_found_when_easy():
    # x + 1 < 0 < x: only x = INT_MAX, over the bit vectors; the integers refute it
    assert LinearRelaxation().solve([X > 0, X + 1 < 0])[0] == z3.unsat
    t = PathTarget(None, rlimit=5_000_000)
    t.constrain(X > 0)
    t.constrain(X + 1 < 0)
    assert t.check() == z3.sat
    assert t.model().eval(X).as_signed_long() == 2**31 - 1


def test_products_of_unknowns_have_no_reading():
    assert LinearRelaxation().solve([X * Y == 77, X > 1, Y > 1]) == (z3.unknown, None)


def test_the_relaxed_translation_does_not_wrap():
    big = z3.BitVecVal(2**31 - 1, 32)
    exact, relaxed = BvToInt(z3.main_ctx()), BvToInt(z3.main_ctx(), relaxed=True)
    assert z3.simplify(exact.term(big + 1)).as_long() == -(2**31)
    assert z3.simplify(relaxed.term(big + 1)).as_long() == 2**31


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.integers(-9, 9), st.integers(-60, 60),
                          st.sampled_from(["<=", "<", "==", "!=", "u<"])), min_size=1, max_size=5))
def test_where_nothing_can_wrap_the_integer_reading_agrees_with_the_bit_vectors(rows):
    # Variables in [-100, 100] and small coefficients: no term reaches 2^31
    cs = [v >= -100 for v in (X, Y, Z)] + [v <= 100 for v in (X, Y, Z)]
    for a, b, c, k, op in rows:
        lhs = a * X + b * Y + c * Z
        cs.append({"<=": lhs <= k, "<": lhs < k, "==": lhs == k, "!=": lhs != k, "u<": z3.ULT(lhs, k)}[op])
    bv = z3.Solver()
    bv.add(cs)
    expected = bv.check()
    answer, model = LinearRelaxation().solve(cs)
    assert answer == expected
    if answer == z3.sat:  # the integer solution is one of the bit vectors
        assert model is not None and all(z3.is_true(model.eval(c, model_completion=True)) for c in cs)


def test_a_path_with_no_unknowns_left_open_by_the_first_try_is_answered_by_an_empty_model():
    t = PathTarget(None, rlimit=1)  # the first try decides nothing
    t.constrain(z3.BitVecVal(3, 8) * 3 + 3 == 12)
    assert t.check() == z3.sat  # an empty model is a model (it was taken for none: an exception)
    assert len(t.model()) == 0


def test_a_narrowing_cast_counts_as_a_wrap_around():
    # (char) x == 5 with x > 100: over the bit vectors x = 261; read over the integers
    # with the cast's value in its range, refuted (the cast wraps)
    b = z3.Extract(7, 0, X)
    assert LinearRelaxation().solve([b == 5, X > 100])[0] == z3.unsat
    answer, model = LinearRelaxation().solve([b == 5, X > 0])
    assert answer == z3.sat and model.eval(X).as_signed_long() == 5


def test_a_flip_the_integers_solve_never_reaches_the_bit_vector_solver():
    # The sampler's flips are read over the integers first, as CREST's were: a solution
    # that holds on the bit vectors answers, and the path is never bit-blasted
    t = PathTarget(None, rlimit=5_000_000)
    for c in (X * 3 + Y * 5 == 101, X > 0, Y > 0, X < Y):
        t.constrain(c)
    assert t.check() == z3.sat and t.linear.solutions == 1
    assert len(t.solver.assertions()) == 0
    m = t.model()
    assert all(z3.is_true(m.eval(c, model_completion=True)) for c in t.eq.constraints)


def test_small_values_are_tried_first_and_large_ones_still_found():
    answer, model = LinearRelaxation().solve([X > 7, Y != X])
    assert answer == z3.sat and 7 < model.eval(X).as_signed_long() <= SMALL
    assert -SMALL <= model.eval(Y).as_signed_long() <= SMALL
    answer, model = LinearRelaxation().solve([X > 100_000, X + Y == 5])
    assert answer == z3.sat and model.eval(X).as_signed_long() > 100_000
    assert model.eval(X + Y).as_signed_long() == 5


def test_aimed_solutions_spread_over_the_small_values_and_hold_on_the_bit_vectors():
    cs = [X >= 9, X <= 1000, Y > X]
    # The solver alone: one solution, the end of a bound, however often asked
    assert len({LinearRelaxation().solve(cs)[1].eval(X).as_signed_long() for _ in range(5)}) == 1
    seen = set()
    for seed in range(30):
        r, m = LinearRelaxation(rng=random.Random(seed)).solve(cs)
        assert r == z3.sat and all(z3.is_true(m.eval(c, model_completion=True)) for c in cs)
        seen.add(m.eval(X).as_signed_long())
    assert len(seen) >= 10 and min(seen) >= 9 and max(seen) > 100


def test_aims_near_given_points_land_there_about_half_the_time():
    cs = [X >= 2, X <= 1000]
    near = 0
    for seed in range(60):
        r, m = LinearRelaxation(rng=random.Random(seed), points=(40,)).solve(cs)
        assert r == z3.sat and all(z3.is_true(m.eval(c, model_completion=True)) for c in cs)
        near += m.eval(X).as_signed_long() in (39, 40, 41)
    # one aim in two is 40 +- 1 (uniform over [-255, 255] would land there 3 times in 511)
    assert 15 <= near <= 45, near


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.integers(-60, 60),
                                   st.sampled_from(["<=", "==", "!="])), min_size=1, max_size=4),
                min_size=2, max_size=6))
def test_one_reading_asked_many_questions_answers_each_as_a_fresh_one(questions):
    # One reading asked question after question (its refuting solver kept): what an
    # earlier question asked constrains no later one (x > 5, then x < 3: sat both
    # times), and each solution is a fresh solver's (the sampler's distribution: an
    # incremental solver's solutions are not the small ones)
    def formula(a, b, k, op):
        lhs = a * X + b * Y
        return {"<=": lhs <= k, "==": lhs == k, "!=": lhs != k}[op]

    shared = LinearRelaxation()
    for q in questions:
        cs = [formula(*row) for row in q] + [X >= -100, X <= 100, Y >= -100, Y <= 100]
        bv = z3.Solver()
        bv.add(cs)
        answer, model = shared.solve(cs)
        assert answer == bv.check()
        again, alone = LinearRelaxation().solve(cs)
        assert again == answer and (model is None) == (alone is None)
        if model is not None:
            assert all(z3.is_true(model.eval(c, model_completion=True)) for c in cs)
            assert [model.eval(v, model_completion=True).as_long() for v in (X, Y)] == \
                [alone.eval(v, model_completion=True).as_long() for v in (X, Y)]
