"""Counterexample minimization (Groce & Kroening, Sec. 4): shortest trace first,
then smallest values, on the same encoding that found the counterexample.

- length: the number of executed statements (visible assignments and inputs),
  a weighted sum of the guards of the steps that execute them;
- values: the sum of |x| over those statements' values, with the paper's encoding
  of a signed bit-vector's absolute value: sign bit weight 1, bit i (i < n-1)
  weight 2^i on ``x_i xor sign(x)``.

``optimal`` solves both as weighted MaxSMT (z3's Optimize, maxres); ``greedy`` is
the incremental bit-by-bit heuristic of CBMC's ``--beautify`` (not optimal). On a
timeout the best counterexample found so far is kept and marked ``best-so-far``.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass

import z3

from ..ir.types import IntType
from ..semantics.bmc import Encoding
from ..semantics.traces import Counterexample, extract, guard_truth, replay
from ..semantics.equation import Step
from ..semantics.solving import check_sat
from .maxsat import maxsat


@dataclass
class MinimizeStats:
    solver_calls: int = 0
    time_s: float = 0.0
    length_before: int = 0
    length_after: int = 0
    sum_before: int = 0
    sum_after: int = 0

    def to_json(self) -> dict:
        return {"solver_calls": self.solver_calls, "time_s": round(self.time_s, 4),
                "length_before": self.length_before, "length_after": self.length_after,
                "value_sum_before": self.sum_before, "value_sum_after": self.sum_after}


def counted_steps(enc: Encoding) -> list[Step]:
    """The statements a trace's length and value sum count: visible assignments and inputs."""
    return [s for s in enc.eq.steps if s.kind in ("assign", "input") and not s.hidden]


def abs_terms(s: Step) -> list[tuple[z3.BoolRef, int]]:
    """(bit is one, weight) pairs whose weighted sum is |value| (paper eq. 5)."""
    t = s.type
    if not isinstance(t, IntType) or s.ssa is None or not z3.is_bv(s.ssa):
        return []
    x = s.ssa
    n = t.width
    bit = lambda i: z3.Extract(i, i, x) == 1  # noqa: E731
    if t.is_bool or not t.signed:
        return [(bit(i), 1 << i) for i in range(n)]
    sign = bit(n - 1)
    return [(sign, 1)] + [(z3.Xor(bit(i), sign), 1 << i) for i in range(n - 1)]


def value_sum(enc: Encoding, model: z3.ModelRef) -> int:
    total = 0
    true = guard_truth(model)
    for s in counted_steps(enc):
        if isinstance(s.type, IntType) and true(s.guard):
            v = model.eval(s.ssa, model_completion=True).as_long()
            total += abs(s.type.wrap(v))
    return total


def length_of(enc: Encoding, model: z3.ModelRef) -> int:
    true = guard_truth(model)
    return sum(1 for s in counted_steps(enc) if true(s.guard))


def goal_of(enc: Encoding, prop_id: str) -> z3.BoolRef:
    """The same failure: a violation of the counterexample's property."""
    viol = [s.violation for s in enc.eq.steps if s.kind == "check" and s.prop_id == prop_id]
    return z3.Or(*viol) if viol else z3.BoolVal(False)


def guard_weights(enc: Encoding) -> list[tuple[z3.BoolRef, int]]:
    """Each distinct step guard with the number of counted statements it guards."""
    weights: dict[int, list] = defaultdict(lambda: [None, 0])
    for s in counted_steps(enc):
        entry = weights[s.guard.get_id()]
        entry[0] = s.guard
        entry[1] += 1
    return [(g, w) for g, w in weights.values() if not z3.is_true(g)]


def named_guards(enc: Encoding) -> list[z3.BoolRef]:
    seen: dict[int, z3.BoolRef] = {}
    for g, _ in enc.eq.guards:
        seen[g.get_id()] = g
    return list(seen.values())


class Minimizer:
    def __init__(self, enc: Encoding, cex: Counterexample, checks: frozenset[str], timeout_s: float = 60.0) -> None:
        self.enc = enc
        self.cex = cex
        self.checks = checks
        self.deadline = time.perf_counter() + timeout_s
        self.stats = MinimizeStats()
        self.goal = goal_of(enc, cex.prop_id)

    def remaining_ms(self) -> int:
        return max(1, int((self.deadline - time.perf_counter()) * 1000))

    # -------------------------------------------------------------- optimal

    def optimal(self, what: str) -> tuple[z3.ModelRef | None, str]:
        """Exact: the shortest length first; then, among the traces of that length (a
        bound on the length rather than a fixed path, so no shortest path with smaller
        values is lost), the smallest value sum. Each stage is weighted MaxSAT (RC2 on
        the bit-blasted formula, re-checked in z3; z3's MaxSMT if RC2 fails)."""
        base = list(self.enc.eq.constraints) + [self.goal]
        model = None
        weights = guard_weights(self.enc)
        if what in ("length", "all"):
            model, status = self._stage(base, [(z3.Not(g), w) for g, w in weights])
            if model is None:
                return None, status
            best = sum(w for g, w in weights if z3.is_true(model.eval(g, model_completion=True)))
            if weights:
                base.append(z3.PbLe([(g, w) for g, w in weights], best))
        if what in ("values", "all"):
            softs = [(z3.Or(z3.Not(s.guard), z3.Not(lit)), w)
                     for s in counted_steps(self.enc) for lit, w in abs_terms(s)]
            m2, status = self._stage(base, softs)
            if m2 is None:
                return model, status if model is None else "timeout"
            model = m2
        return model, "ok"

    def _stage(self, hard: list[z3.BoolRef], softs: list[tuple[z3.BoolRef, int]]) -> tuple[z3.ModelRef | None, str]:
        if not softs:
            s = z3.Solver()
            s.add(*hard)
            return (s.model(), "ok") if self._check(s) == z3.sat else (None, "unsat")
        r = maxsat(hard, softs, (self.deadline - time.perf_counter()))
        self.stats.solver_calls += 2
        self.stats.time_s += r.time_s
        self.backend = "rc2"
        if r.status == "optimal":
            return r.model, "ok"
        if r.status in ("unsat", "timeout"):
            return None, r.status
        # RC2 could not be used or its answer did not re-check: z3's own MaxSMT.
        self.backend = "z3"
        opt = z3.Optimize()
        opt.add(*hard)
        opt.set("timeout", self.remaining_ms())
        for f, w in softs:
            opt.add_soft(f, w)
        res = self._check(opt)
        if res == z3.sat:
            return opt.model(), "ok"
        return None, "timeout" if res == z3.unknown else "unsat"

    def _check(self, opt):
        t0 = time.perf_counter()
        r = check_sat(opt, (), self.deadline)
        self.stats.solver_calls += 1
        self.stats.time_s += time.perf_counter() - t0
        return r

    # --------------------------------------------------------------- greedy

    def greedy(self, what: str) -> tuple[z3.ModelRef | None, str]:
        """CBMC's --beautify: force guards false heaviest first, then bits, most
        significant first, towards a small absolute value; keep what stays sat."""
        s = self.enc.solver
        s.push()
        try:
            s.add(self.goal)
            r = self._solve(s, [])
            if r != z3.sat:
                return None, "timeout" if r == z3.unknown else "unsat"
            model = s.model()
            status = "ok"
            if what in ("length", "all"):
                for g, _ in sorted(guard_weights(self.enc), key=lambda p: -p[1]):
                    if z3.is_false(model.eval(g, model_completion=True)):
                        s.add(z3.Not(g))
                        continue
                    r = self._solve(s, [z3.Not(g)])
                    if r == z3.sat:
                        model = s.model()
                        s.add(z3.Not(g))
                    elif r == z3.unknown:
                        return model, "timeout"
                for g in named_guards(self.enc):
                    s.add(g == model.eval(g, model_completion=True))
            if what in ("values", "all"):
                model, status = self._greedy_values(s, model)
            return model, status
        finally:
            s.pop()

    def _greedy_values(self, s: z3.Solver, model: z3.ModelRef) -> tuple[z3.ModelRef, str]:
        steps = [st for st in counted_steps(self.enc)
                 if isinstance(st.type, IntType) and z3.is_true(model.eval(st.guard, model_completion=True))]
        width = max((st.type.width for st in steps), default=0)  # type: ignore[union-attr]
        for i in range(width - 1, -1, -1):
            for st in steps:
                t = st.type
                assert isinstance(t, IntType)
                if i >= t.width:
                    continue
                x = st.ssa
                if t.signed and not t.is_bool:
                    if i == t.width - 1:
                        want = 0  # prefer non-negative values
                    else:
                        want = model.eval(z3.Extract(t.width - 1, t.width - 1, x), model_completion=True).as_long()
                else:
                    want = 0
                lit = z3.Extract(i, i, x) == want
                if z3.is_true(model.eval(lit, model_completion=True)):
                    s.add(lit)
                    continue
                r = self._solve(s, [lit])
                if r == z3.sat:
                    model = s.model()
                    s.add(lit)
                elif r == z3.unknown:
                    return model, "timeout"
        return model, "ok"

    def _solve(self, s: z3.Solver, assumptions: list) -> z3.CheckSatResult:
        t0 = time.perf_counter()
        r = check_sat(s, assumptions, self.deadline)
        self.stats.solver_calls += 1
        self.stats.time_s += time.perf_counter() - t0
        return r


@dataclass
class Minimized:
    cex: Counterexample
    stats: MinimizeStats
    model: z3.ModelRef | None  # the model of ``cex`` (what explanation starts from)


def minimize(enc: Encoding, cex: Counterexample, checks: frozenset[str], what: str = "all",
             method: str = "optimal", timeout_s: float = 60.0) -> Minimized:
    """A counterexample for the same property, minimized and replayed by the interpreter."""
    m = Minimizer(enc, cex, checks, timeout_s)
    first = enc.solve(m.goal)[1]
    if first is not None:
        m.stats.length_before = m.stats.length_after = length_of(enc, first)
        m.stats.sum_before = m.stats.sum_after = value_sum(enc, first)
    if what == "none" or first is None:
        cex.minimized = "none"
        cex.value_sum = m.stats.sum_before
        return Minimized(cex, m.stats, first)
    model, status = (m.optimal(what) if method == "optimal" else m.greedy(what))
    if model is None:
        # Timeout before any improvement: the first counterexample of this property.
        out = extract(enc.eq, first, checks)
        out.replay = replay(enc.program, out, checks)
        out.minimized = "best-so-far"
        out.value_sum = m.stats.sum_before
        return Minimized(out, m.stats, first)
    out = extract(enc.eq, model, checks)
    out.value_sum = value_sum(enc, model)
    out.minimized = "best-so-far" if status == "timeout" else method
    out.replay = replay(enc.program, out, checks)
    m.stats.length_after = length_of(enc, model)
    m.stats.sum_after = out.value_sum
    return Minimized(out, m.stats, model)
