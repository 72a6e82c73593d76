"""The path target's solver follows the tree of frames lazily (pushes only when a
question is asked, a frame per 32 nodes, constraints added again after a pop): every
answer equals a fresh solver's on the current path's constraints, and the last
answer is reused only while nothing was added; the last model answers a deeper
question only if it satisfies what was added (and holds no more once a constraint
lands above its node)."""

from __future__ import annotations

import random

import z3

from tracelearn.semantics.targets import FRAME_NODES, PathTarget


def test_answers_equal_a_fresh_solvers_on_the_current_path():
    x, y = z3.BitVecs("x y", 8)
    atoms = [x > 3, x < 100, y == x + 1, y != 7, x & 1 == 0, y < 20, x == 5, y > x, x + y == 12,
             z3.ULT(x, 200), y == 2 * x, x != 6]
    sats = unsats = reused = by_model = 0
    for seed in range(12):
        rng = random.Random(seed)
        t = PathTarget()
        nodes = [t.node]
        for _ in range(400):
            op = rng.random()
            if op < 0.35:
                nodes.append(t.push())
            elif op < 0.5:
                t.constrain(rng.choice(atoms))
            elif op < 0.8:
                t.goto(rng.choice(nodes[:max(1, len(nodes) // 3)] if rng.random() < 0.5 else nodes))
            else:
                r = t.check()
                calls = t.calls
                fresh = z3.Solver()
                fresh.add(*[c for n in t.nodes for c in n.constraints])
                assert r == fresh.check()
                assert t.eq.constraints == [c for n in t.nodes for c in n.constraints]
                if r == z3.sat:
                    sats += 1
                    m = t.model()
                    assert all(z3.is_true(m.eval(c, model_completion=True)) for n in t.nodes for c in n.constraints)
                    assert t.node.known_sat
                else:
                    unsats += 1
                if rng.random() < 0.3:  # nothing added: the same answer, no solver call
                    assert t.check() == r and t.calls == calls
                    reused += 1
        by_model += t.by_model
    assert sats > 50 and unsats > 30 and reused > 20 and by_model > 20, (sats, unsats, reused, by_model)


def test_a_deep_path_costs_a_push_per_frame_of_nodes_not_per_node():
    x = z3.BitVec("x", 16)
    t = PathTarget()
    for i in range(10 * FRAME_NODES):
        t.push()
        t.constrain(x != i)
    assert t.check() == z3.sat
    assert 9 <= t.solver.num_scopes() <= 11  # a frame per 32 nodes, not one per node
    # back to the middle: only the frames below it go, then its nodes are added again
    mid = t.nodes[5 * FRAME_NODES + 3]
    t.goto(mid)
    t.push()
    t.constrain(x == 5 * FRAME_NODES + 1)
    assert t.check() == z3.unsat  # x != 161 is on the path
    t.goto(mid)
    t.push()
    t.constrain(x == 10 * FRAME_NODES + 1)
    assert t.check() == z3.sat
    assert len(t.solver.assertions()) == 5 * FRAME_NODES + 3 + 1


def test_definitions_read_back_stay_exact_when_a_frame_above_gains_one():
    """Sigma*'s reading of terms over the inputs caches each frame's definitions; a
    frame with children that gains a definition afterwards makes the caches below stale."""
    from tracelearn.semantics.strategies.bigstep import Definitions
    inp = z3.BitVec("in", 8)
    a, b, c = z3.BitVecs("a#1 b#1 c#1", 8)
    t = PathTarget()
    defs = Definitions(t)
    t.push()
    t.constrain(a == inp + 1)
    top = t.node
    for _ in range(50):
        t.push()
    t.constrain(b == a * 2)
    deep = t.node
    assert z3.simplify(defs.expand(b, deep) - (inp + 1) * 2) == 0
    t.goto(top)
    t.constrain(c == inp)  # a frame with children gains a definition
    t.goto(deep)
    assert t.epoch == 1
    assert z3.eq(defs.expand(c, deep), inp)  # seen from below: the cache was not reused
    assert len(defs.of(deep)) == 3


def test_a_question_past_the_inline_budget_is_asked_again_not_answered_unknown():
    """``inline_rlimit`` (the big-step explorer's): the question first in this thread
    under the budget; one that needs more is asked again, and its answer is the
    fresh solver's, never ``unknown``."""
    x, y = z3.BitVecs("x y", 32)
    hard = [x * y == 0x12345679, z3.UGT(x, 1), z3.UGT(y, 1), z3.ULT(x, y)]
    for budget in (1, 10_000_000):
        t = PathTarget(inline_rlimit=budget)
        t.push()
        for c in hard:
            t.constrain(c)
        fresh = z3.Solver()
        fresh.add(*hard)
        assert t.check() == fresh.check() != z3.unknown
        t.constrain(x == 1)  # and a refutation after it
        assert t.check() == z3.unsat


def test_a_check_defined_since_the_last_model_is_answered_by_that_model():
    """A check's violation is a symbol the path defines (``viol == guard``) after the
    last model was found: the model gives it its term's value, with no solver call
    (completion gave it ``false``, and a failing run's path was asked again)."""
    x = z3.BitVec("x", 32)
    viol, other = z3.Bools("viol#1 viol#2")
    t = PathTarget()
    t.push()
    t.constrain(x > 100)
    assert t.check() == z3.sat and t.calls == 1
    t.push()
    t.constrain(viol == (x > 50))  # holds in every model of the path
    assert t.check([viol]) == z3.sat and t.calls == 1 and t.by_model == 1
    assert z3.is_true(t.model().eval(viol))
    t.push()
    t.constrain(other == (x < 50))  # defined too, but false in the model: the solver refutes it
    assert t.check([other]) == z3.unsat and t.calls == 2
