"""Properties of filters from their learned transducers: equivalence of two filters,
idempotence (f.f = f), commutativity (f.g = g.f), inverse (g.f = id). A composition
is learned as a filter of its own: the C pipeline of the first filter's transducer
feeding the second filter's code (``cgen.pipeline_source``), so every model used is
one ``learn-filter`` proved (or the answer says it was not).

Two deterministic transducers are compared step by step (a product, breadth first:
the first difference found is on a shortest input). A difference in one step is a
candidate; it is an answer only if the two whole outputs on that input differ (a
filter may write the same output a step later), else the comparison is ``unknown``.
Every "no" is replayed: the filters run in the interpreter on the witness."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import z3

from ...automata.transducer import Move, Transducer, window_vars
from .windows import outputs_differ, path_input, satisfiable


@dataclass
class Comparison:
    status: str  # "equal" | "different" | "unknown"
    witness: list[int] | None = None
    reason: str = ""
    pairs: int = 0
    solver_calls: int = 0


def identity(bits: int) -> Transducer:
    """The identity filter on ``bits``-bit elements."""
    w0 = z3.BitVec("w0", bits)
    return Transducer(bits, 1, 0, [Move(0, z3.BoolVal(True), (z3.SignExt(32 - bits, w0),), 0)], [], ())


def compare(a: Transducer, b: Transducer, max_pairs: int = 100_000, deadline: float | None = None) -> Comparison:
    """Are the two transducers the same function? A query the solver leaves undecided
    by ``deadline`` (a ``time.perf_counter()`` value) raises TimeoutError."""
    if a.bits != b.bits:
        return Comparison("unknown", reason="the element types differ")
    res = Comparison("unknown")
    if list(a.initial_output) != list(b.initial_output):
        return _confirm(a, b, [], res)
    k = max(a.lookback, b.lookback)
    start = (a.initial, b.initial, 0)
    queue = deque([(start, ())])
    seen = {start}
    while queue:
        (qa, qb, d), conds = queue.popleft()
        res.pairs += 1
        # the end of the input here
        fa = _finals(a, qa, d)
        fb = _finals(b, qb, d)
        for ga, oa in fa:
            for gb, ob in fb:
                bad = z3.And(ga, gb, outputs_differ(oa, ob))
                if _sat(bad, res, deadline):
                    return _confirm(a, b, path_input(list(conds) + [bad], a.bits, len(conds)), res)
        # one more element
        ma = [(m, _enabled(m.guard, m.outputs, d)) for m in a.out_of(qa)]
        mb = [(m, _enabled(m.guard, m.outputs, d)) for m in b.out_of(qb)]
        for x, ex in ma:
            for y, ey in mb:
                both = z3.And(ex, ey)
                if not _sat(both, res, deadline):
                    continue
                bad = z3.And(both, outputs_differ(x.outputs, y.outputs))
                if _sat(bad, res, deadline):
                    return _confirm(a, b, path_input(list(conds) + [bad], a.bits, len(conds) + 1), res)
                nxt = (x.dst, y.dst, min(d + 1, k))
                if nxt not in seen:
                    if len(seen) >= max_pairs:
                        res.reason = f"more than {max_pairs} state pairs"
                        return res
                    seen.add(nxt)
                    queue.append((nxt, conds + (both,)))
        for m, e in ma + mb:  # one is stuck where the other goes on
            others = mb if any(m is x for x, _ in ma) else ma
            stuck = z3.And(e, *[z3.Not(o) for _, o in others])
            if _sat(stuck, res, deadline):
                return _confirm(a, b, path_input(list(conds) + [stuck], a.bits, len(conds) + 1), res)
    res.status = "equal"
    return res


def _confirm(a: Transducer, b: Transducer, witness: list[int] | None, res: Comparison) -> Comparison:
    if witness is None:
        res.reason = "a differing step that no input reaches"
        return res
    if a.run(witness) != b.run(witness):
        return Comparison("different", witness, "", res.pairs, res.solver_calls)
    res.reason = (f"the two write the same output on {witness} at different steps: "
                  "the step-by-step comparison cannot decide")
    return res


def _finals(t: Transducer, q: int, d: int) -> list[tuple[z3.BoolRef, tuple]]:
    """The final moves of ``q`` as (chosen-condition, outputs), first enabled wins; the
    rest: no output."""
    out = []
    earlier: list[z3.BoolRef] = []
    for f in t.finals:
        if f.src != q:
            continue
        en = _enabled(f.guard, f.outputs, d, final=True)
        out.append((z3.And(en, *[z3.Not(e) for e in earlier]), f.outputs))
        earlier.append(en)
    out.append((z3.And(*[z3.Not(e) for e in earlier]) if earlier else z3.BoolVal(True), ()))
    return out


def _enabled(guard: z3.BoolRef, outputs: tuple, d: int, final: bool = False) -> z3.BoolRef:
    for t in (guard, *outputs):
        for j in window_vars(t):
            if (final and j == 0) or j > d:
                return z3.BoolVal(False)
    return guard


def _sat(f: z3.BoolRef, res: Comparison, deadline: float | None) -> bool:
    if deadline is not None and time.perf_counter() >= deadline:
        raise TimeoutError("time limit")
    res.solver_calls += 1
    return satisfiable(f, deadline)
