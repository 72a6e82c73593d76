"""The raw-C-API term helpers (``z3dag``) and the sign-extension folding built on the
same raw walk: random terms, checked against z3's own functions and by z3 itself."""

from __future__ import annotations

import random

import z3

from tracelearn.semantics.symexpr import SignExtFolds, fold_sign_ext
from tracelearn.z3dag import (all_of, any_of, applications, assert_all, bool_ite, bv_numerals, conjuncts, constants,
                              define_fresh, defined_symbol, holds, names, negated, substitute)

X = [z3.BitVec(f"w{i}", 8) for i in range(3)]
Y = z3.BitVec("in!4", 32)


def _term(rnd: random.Random, depth: int) -> z3.BitVecRef:
    if depth == 0:
        return rnd.choice([rnd.choice(X), z3.BitVecVal(rnd.randrange(256), 8), z3.Extract(7, 0, Y)])
    a = _term(rnd, depth - 1)
    k = rnd.randrange(4)
    if k == 0:
        return a + _term(rnd, depth - 1)
    if k == 1:
        return a & _term(rnd, depth - 1)
    if k == 2:
        return z3.If(z3.ULT(a, _term(rnd, depth - 1)), a, _term(rnd, depth - 1))
    return z3.Extract(7, 0, z3.SignExt(8, a) >> 2)


def _has_sign_concat(t: z3.ExprRef) -> bool:
    """The simplifier's sign extension anywhere in ``t``: a concat of x's sign bit,
    repeated, and x (or of the bit of a wider y that x's low bits are taken from)."""
    todo, seen = [t], set()
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_app_of(e, z3.Z3_OP_CONCAT) and e.num_args() > 1:
            *hi, x = e.children()
            top = x.size() - 1
            base = x.arg(0) if z3.is_app_of(x, z3.Z3_OP_EXTRACT) and x.params()[1] == 0 else x
            if all(z3.is_app_of(c, z3.Z3_OP_EXTRACT) and c.params() == [top, top] and c.arg(0).eq(base)
                   for c in hi):
                return True
        if z3.is_app(e):
            todo.extend(e.children())
    return False


def test_fold_sign_ext_keeps_the_meaning_and_leaves_no_sign_concat():
    rnd = random.Random(7)
    folds = SignExtFolds()
    folded = 0
    for i in range(300):
        t = _term(rnd, rnd.randrange(1, 5))
        wide = z3.simplify(z3.SignExt(24, t) + Y * z3.SignExt(24, _term(rnd, 2)))
        f = fold_sign_ext(wide, folds if i % 2 else None)
        s = z3.Solver()
        s.add(f != wide)
        assert s.check() == z3.unsat, (wide, f)
        assert not _has_sign_concat(f), f
        folded += not f.eq(wide)
    assert folded > 100  # the generator does make the simplifier's concats


def test_fold_sign_ext_leaves_other_terms_as_they_are():
    t = z3.Concat(z3.Extract(7, 7, X[0]), X[1])  # another element's bit: not a sign
    assert fold_sign_ext(t).eq(t)
    t2 = z3.Concat(z3.Extract(7, 6, X[0]), X[0])  # two bits: not a sign extension
    assert fold_sign_ext(t2).eq(t2)
    assert fold_sign_ext(z3.Concat(z3.Extract(7, 7, X[0]), X[0])).eq(z3.SignExt(1, X[0]))
    u = z3.ULT(X[0] + 1, X[2])
    assert fold_sign_ext(u) is u


def test_names_and_substitute_agree_with_z3py():
    rnd = random.Random(3)
    for _ in range(200):
        t = _term(rnd, rnd.randrange(0, 5))
        want = {str(v) for v in z3.z3util.get_vars(t)}
        assert names(t) == want
        u = _term(rnd, 2)
        both = constants([t, u])
        assert sorted(map(str, both)) == sorted({str(v) for v in z3.z3util.get_vars(t) + z3.z3util.get_vars(u)})
        assert all(z3.is_const(c) for c in both)
        pairs = [(X[j], X[(j + 1) % 3] + j) for j in range(3) if rnd.random() < 0.7]
        assert substitute(t, pairs).eq(z3.substitute(t, *pairs))
    assert substitute(X[0], []) is X[0]


def test_bv_numerals_are_those_a_tree_walk_finds():
    rnd = random.Random(5)
    for _ in range(200):
        terms = [_term(rnd, rnd.randrange(0, 5)) for _ in range(3)]
        want, todo = set(), list(terms)
        while todo:
            e = todo.pop()
            if z3.is_bv_value(e):
                want.add((e.as_long(), e.size()))
            elif z3.is_app(e):
                todo.extend(e.children())
        assert bv_numerals(terms) == want
    q = z3.ForAll([Y], z3.ULT(Y, z3.BitVecVal(7, 32)))
    assert bv_numerals([q, z3.IntVal(3) > 2]) == {(7, 32)}  # inside a quantifier; no integers
    assert bv_numerals([]) == set()


def test_holds_is_evaluation_in_the_completed_model():
    rnd = random.Random(9)
    s = z3.Solver()
    s.add(z3.UGT(X[0], 3), X[1] == X[0] + 1)
    assert s.check() == z3.sat
    m = s.model()
    for _ in range(200):
        fs = [_term(rnd, 2) == _term(rnd, 1) if rnd.random() < 0.5 else z3.ULE(_term(rnd, 1), _term(rnd, 2))
              for _ in range(rnd.randrange(0, 4))]
        want = all(z3.is_true(m.eval(f, model_completion=True)) for f in fs)
        assert holds(m, fs) == want
    assert holds(m, [z3.UGT(X[0], 3), X[1] == X[0] + 1]) and not holds(m, [X[1] == X[0]])


def test_assert_all_asserts_what_add_would():
    fs = [z3.UGT(X[0], 3), X[1] == X[0] + 1, z3.ULT(X[1], 5)]
    a, b = z3.Solver(), z3.Solver()
    assert_all(a, fs)
    b.add(*fs)
    assert [str(f) for f in a.assertions()] == [str(f) for f in b.assertions()]
    assert a.check() == z3.sat and all(z3.is_true(a.model().eval(f)) for f in fs)
    assert_all(a, [X[0] == 9])  # 10 is not below 5
    assert a.check() == z3.unsat


def test_applications_are_the_operators_asked_for_each_once():
    x, y = z3.BitVecs("x y", 32)
    s = x + y
    f = z3.And(s * 3 > 1, s - x < 2, z3.ULT(s, y))  # x + y shared three times
    adds = applications([f], frozenset({z3.Z3_OP_BADD}))
    assert [a.sexpr() for a in adds] == ["(bvadd x y)"]
    arith = applications([f, f], frozenset({z3.Z3_OP_BADD, z3.Z3_OP_BSUB, z3.Z3_OP_BMUL}))
    assert sorted(a.sexpr() for a in arith) == sorted(["(bvadd x y)", "(bvmul (bvadd x y) #x00000003)",
                                                      "(bvsub (bvadd x y) x)"])
    assert applications([], frozenset({z3.Z3_OP_BADD})) == []


def test_literal_truth_in_one_call_agrees_with_z3py():
    from tracelearn.z3dag import lit_false, lit_true
    x = z3.BitVec("x", 8)
    b = z3.Bool("b")
    terms = [z3.BoolVal(True), z3.BoolVal(False), b, z3.Not(b), x == 1, x, z3.BitVecVal(1, 8),
             z3.simplify(x == x), z3.simplify(x != x), z3.And(b, z3.BoolVal(False))]
    for t in terms:
        assert lit_true(t) == z3.is_true(t) and lit_false(t) == z3.is_false(t), t
    assert not lit_true(True) and not lit_false(False)  # not a z3 term: not a literal


def _flat(f: z3.BoolRef) -> list[z3.BoolRef]:
    """z3py's reading: nested conjunctions flattened, ``true`` dropped."""
    if z3.is_and(f):
        return [c for x in f.children() for c in _flat(x)]
    return [] if z3.is_true(f) else [f]


def test_conjuncts_flatten_nested_conjunctions_in_order_as_z3py_reads_them():
    rnd = random.Random(5)
    for _ in range(200):
        atoms = [z3.ULT(_term(rnd, 2), _term(rnd, 1)) for _ in range(rnd.randrange(1, 6))]
        parts: list[z3.BoolRef] = []
        for a in atoms:  # nest some, put true and disjunctions between
            r = rnd.random()
            parts.append(z3.And(a, z3.BoolVal(True)) if r < 0.2 else z3.Or(a, atoms[0]) if r < 0.4 else a)
        f = parts[0] if len(parts) == 1 else z3.And(parts[0], z3.And(*parts[1:])) if len(parts) > 2 else z3.And(*parts)
        got = conjuncts(f)
        assert [g.get_id() for g in got] == [g.get_id() for g in _flat(f)]
        s = z3.Solver()
        s.add(f != z3.And(*got) if got else z3.Not(f))
        assert s.check() == z3.unsat


def test_boolean_connectives_in_c_calls_are_z3pys():
    a, b, c = z3.Bools("cz::a cz::b cz::c")
    for ours, theirs in ((negated(a), z3.Not(a)), (bool_ite(a, b, c), z3.If(a, b, c)),
                         (any_of([a, b]), z3.Or(a, b)), (all_of([a, negated(b)]), z3.And(a, z3.Not(b)))):
        assert ours.eq(theirs), (ours, theirs)


def test_define_fresh_gives_defined_symbols_their_terms_values_and_leaves_the_rest():
    s = z3.Solver()
    s.add(z3.UGT(X[0], 3))
    assert s.check() == z3.sat
    m = s.model()
    d1, d2 = z3.BitVecs("d#1 d#2", 8)
    v = z3.Bool("v#1")
    rest = define_fresh(m, [d1 == X[0] + 1, d2 == d1 * 2, v == z3.ULT(d2, 3), z3.UGT(d1, 4), X[0] == 7])
    # X[0] == 7 names a symbol the model has: a constraint to check, not a definition
    assert [str(c) for c in rest] == [str(z3.UGT(d1, 4)), str(X[0] == 7)]
    x0 = m.eval(X[0]).as_long()
    assert m.eval(d1).as_long() == (x0 + 1) % 256 and m.eval(d2).as_long() == (2 * x0 + 2) % 256
    assert z3.is_true(m.eval(v)) == ((2 * x0 + 2) % 256 < 3)
    assert defined_symbol(z3.UGT(d1, 4)) is None and defined_symbol(d1 == 3) == d1.get_id()
