"""The pruning solver asks only the cone of influence of its question, and answers
from its last model when it can: its answers must be the whole equation's."""

import random

import pytest
import z3

from tracelearn.semantics.cone import ConeSolver
from tracelearn.semantics.strategies.unwind import MergedUnwinding
from tracelearn.semantics.bmc import Encoding
from tracelearn.frontend.lower import load_program


def _random_equation(rng: random.Random, n: int):
    """Inputs with domain constraints and definitions in SSA order, the way the
    semantics writes them; plus, now and then, a constraint of another shape."""
    syms: list[z3.ExprRef] = []
    constraints: list[z3.BoolRef] = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.3 or len(syms) < 2:
            x = z3.BitVec(f"in{i}", 8)
            if rng.random() < 0.5:
                constraints.append(z3.ULE(x, rng.randrange(1, 200)))  # a domain constraint
            syms.append(x)
        elif roll < 0.95:
            a, b = rng.sample(syms, 2)
            term = rng.choice([a + b, a - b, a * 3 + b, a & b, a ^ (b >> 1),
                               z3.If(z3.ULT(a, b), a, b), a * b])
            x = z3.BitVec(f"d{i}", 8)
            constraints.append(x == term)
            syms.append(x)
        else:  # a relation between two symbols: must always be asserted
            a, b = rng.sample(syms, 2)
            constraints.append(z3.ULE(a, b + 5))
    return syms, constraints


def test_answers_are_the_whole_equations_on_random_equations():
    rng = random.Random(7)
    answered_by_model = unsat = 0
    for trial in range(60):
        syms, constraints = _random_equation(rng, 25)
        cone = ConeSolver()
        full = z3.Solver()
        seen = 0
        for step in range(12):
            # the equation grows between questions, as during the unwinding
            upto = min(len(constraints), seen + rng.randrange(1, 5))
            full.add(*constraints[seen:upto])
            seen = upto
            avail = [s for s in syms if any(s.eq(c.arg(0)) for c in constraints[:upto] if z3.is_eq(c))
                     or str(s).startswith("in")]
            a, b = rng.choice(avail), rng.choice(avail)
            k = rng.randrange(256)
            guard = rng.choice([a == b, z3.ULT(a, b), z3.UGT(a + 1, b), a == k,
                                z3.And(z3.ULT(a, 50), z3.UGT(b, 100)), z3.And(a == k, b == k ^ 1),
                                z3.And(a == k, a * 2 + b == 7)])
            cone.index(constraints[:upto])
            got = cone.check(guard, None)
            want = full.check(guard)
            assert got == want, (trial, step, guard)
            unsat += want == z3.unsat
        answered_by_model += cone.model_answers
    assert answered_by_model > 50  # the model path was exercised
    assert unsat > 100  # and questions whose answer is no


@pytest.mark.parametrize("second", ["bitwuzla", "z3"])
def test_the_second_solver_gives_the_whole_equations_answers(monkeypatch, second):
    """Where the incremental solver has not answered in its share (none here), Bitwuzla
    or a fresh z3 solver answers; floats stored as bits (z3's ``fp.to_ieee_bv``, which
    Bitwuzla does not read) included. Unsat stays unsat; a sat answer's model is one of
    every constraint asserted, so it answers the next question of the same cone."""
    from tracelearn.semantics import bitwuzla_backend, cone as cone_mod
    if second == "bitwuzla" and not bitwuzla_backend.available():
        pytest.skip("bitwuzla is not installed")
    monkeypatch.setattr(cone_mod, "INCREMENTAL_S", 0.0)
    rng = random.Random(11)
    by_bitwuzla = by_fresh = 0
    with bitwuzla_backend.BitwuzlaWorker() as worker:
        for trial in range(15):
            syms, constraints = _random_equation(rng, 20)
            f = z3.FP(f"f{trial}", z3.Float32())
            bits = z3.BitVec(f"bits{trial}", 32)
            constraints += [bits == z3.fpToIEEEBV(f), z3.fpGT(f, z3.FPVal(1.5, z3.Float32()))]
            cone = ConeSolver(worker if second == "bitwuzla" else None)
            cone.index(constraints)
            full = z3.Solver()
            full.add(*constraints)
            for a in syms[-4:]:
                for guard in (z3.ULT(a, 7), z3.And(a == 3, z3.Extract(31, 24, bits) == a),
                              z3.And(z3.UGT(a, 250), a == 4)):
                    assert cone.check(guard, None) == full.check(guard), (trial, guard)
            by_bitwuzla += cone.bitwuzla_calls
            by_fresh += cone.fresh_calls
    if second == "bitwuzla":
        assert by_bitwuzla > 10 and by_fresh == 0
    else:
        assert by_fresh > 10 and by_bitwuzla == 0


def test_a_constraint_of_another_shape_is_always_asserted():
    x, y = z3.BitVecs("x y", 8)
    cone = ConeSolver()
    cone.index([x + y == 3])  # not a definition: ``x + y`` is no symbol
    assert cone.check(z3.And(x == 1, y == 1), None) == z3.unsat
    d = z3.BitVec("d", 8)
    cone.index([x + y == 3, d == x * 2])
    assert cone.check(d == 2, None) == z3.sat
    assert cone.check(z3.And(d == 2, y == 5), None) == z3.unsat


def test_a_domain_constraint_rides_with_its_input():
    p = z3.BitVec("p", 8)
    q = z3.BitVec("q", 8)
    cone = ConeSolver()
    cone.index([z3.ULE(p, 1), q == p + 1])
    assert cone.check(q == 3, None) == z3.unsat
    assert cone.check(q == 2, None) == z3.sat
    assert cone.check(q == 1, None) == z3.sat


DEEP = """
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_error(void);
int addition(int m, int n) {
    if (n == 0) return m;
    if (n > 0) return addition(m + 1, n - 1);
    if (n < 0) return addition(m - 1, n + 1);
    return 0;
}
int main(void) {
    int m = __VERIFIER_nondet_int();
    int n = __VERIFIER_nondet_int();
    if (m < 0 || n < 0) return 0;
    int r = addition(m, n);
    if (n > 30 && r < m) __VERIFIER_error();
    return 0;
}
"""


def test_deep_recursion_prunes_with_few_solver_calls(tmp_path, monkeypatch):
    src = tmp_path / "deep.c"
    src.write_text(DEEP)
    program = load_program(str(src), "ILP32")
    made: list[MergedUnwinding] = []
    original = MergedUnwinding.__init__

    def keep(self, *a, **k):
        original(self, *a, **k)
        made.append(self)
    monkeypatch.setattr(MergedUnwinding, "__init__", keep)
    enc = Encoding(program, 40)
    cone = made[-1].prune_solver
    # every recursive call asks: the branch the other sign took is pruned (unsat), the
    # next level down is satisfiable and the extended model says so for most of the 40
    # levels (how many depends on the models z3 picks, which terms made earlier in the
    # process sway: 29 after the whole suite, 30+ alone)
    assert cone.model_answers >= 25
    assert cone.calls + cone.model_answers >= 2 * 40
    viol = z3.Or(*[s.violation for s in enc.checks(frozenset({"error-call"}))])
    assert enc.solve(viol)[0] == "sat"  # wraps past INT_MAX: the bug is there


def test_pruning_gives_up_after_undecided_questions(tmp_path, monkeypatch):
    """Each undecided pruning question costs its time cap and keeps the path anyway:
    pruning stops after 3 in a row, or 6 in all when decided ones come between."""
    from tracelearn.semantics.cone import ConeSolver

    src = tmp_path / "deep.c"
    src.write_text(DEEP)
    program = load_program(str(src), "ILP32")
    for answers, asked in ([z3.unknown], 3), ([z3.unknown, z3.sat], 11):
        calls: list[int] = []

        def check(self, guard, deadline, answers=answers, calls=calls):
            calls.append(1)
            return answers[(len(calls) - 1) % len(answers)]
        monkeypatch.setattr(ConeSolver, "check", check)
        Encoding(program, 8)
        assert len(calls) == asked  # every one answered sat: 1,022 questions at this bound
