"""k-induction beside the bounded model checker: after each bound k the model checker
completes without a failing check (the base case), the step case for k is checked on
the program ``semantics/strategies/kinduction.py`` makes (one more unwinding, checks
armed after k arrivals at the loop head), from any state satisfying the loop
invariants Houdini keeps of the candidates (found once, before the first step case).
No failing check there, on any path: proved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import z3

from ..ir.program import Program
from ..semantics.bmc import Encoding, SolverStats
from ..semantics.symbolic import SemanticsOptions, SymexLimit
from ..semantics.strategies.kinduction import (
    CANDIDATE, COUNTER, Candidate, KLoop, candidates, instrument, kinduction_loop, step_case,
)


@dataclass
class KInduction:
    """What k-induction did: ``status`` proved | refused | not-inductive | unknown."""

    status: str
    k: int | None = None  # the largest k whose step case was checked (proved: the k that made it)
    reason: str = ""
    steps_checked: int = 0
    time_s: float = 0.0
    invariants: list[str] | None = None  # the candidates Houdini kept (None: not run yet)
    candidates: int = 0
    loop: str = ""  # where the loop head is (file:line:col), in the entry procedure
    proc: str = ""
    # proved: the invariants alone are a proof (inductive, and no check fails in an
    # iteration from any state satisfying them): a correctness witness can carry them
    sufficient: bool = False

    def to_json(self) -> dict:
        return {"method": "k-induction", "status": self.status, "k": self.k, "reason": self.reason or None,
                "steps_checked": self.steps_checked, "time_s": round(self.time_s, 4),
                "candidates": self.candidates, "invariants": self.invariants, "loop": self.loop or None,
                "invariants_sufficient": self.sufficient}


class KInductionProver:
    """The step cases of one program, asked bound after bound by the model checker."""

    def __init__(self, program: Program, goals: frozenset[str], max_steps: int) -> None:
        self.program = program
        self.goals = goals  # the check kinds a step must rule out (the property and undefined behaviour)
        self.max_steps = max_steps
        found = kinduction_loop(program)
        self.loop: KLoop | None = found if isinstance(found, KLoop) else None
        self.result = KInduction("refused", reason=found) if isinstance(found, str) else KInduction("not-inductive")
        self.invariants: list[Candidate] | None = None
        if self.loop is not None:
            self.result.loop, self.result.proc = str(self.loop.loc), self.loop.proc

    def refuse(self, why: str) -> None:
        self.loop = None
        self.result = KInduction("refused", reason=why)

    def step(self, k: int, deadline: float, stats: SolverStats, stop: Callable[[], bool] | None) -> bool:
        """Is the step case for ``k`` valid? (The caller has the base case for ``k``.)"""
        if self.loop is None:
            return False
        t0 = time.perf_counter()
        try:
            if not self._step(k, deadline, stats, stop):
                return False
            # does the proof need k at all? the step case for 0 is the invariants' own
            self.result.sufficient = k == 0 or self._step(0, deadline, stats, stop)
            self.result.k, self.result.status, self.result.reason = k, "proved", ""
            return True
        finally:
            self.result.time_s += time.perf_counter() - t0

    def _step(self, k: int, deadline: float, stats: SolverStats, stop: Callable[[], bool] | None) -> bool:
        assert self.loop is not None
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        if self.invariants is None:
            try:
                self.invariants = self.houdini(deadline, stats, stop)
            except SymexLimit as e:
                self.invariants = []
                self.result.reason = f"no invariants: {e}"
            self.result.invariants = [c.text for c in self.invariants]
        self.result.k = k
        self.result.steps_checked += 1
        try:
            enc = Encoding(step_case(self.program, self.loop, k, self.invariants), k + 1, {},
                           max(0.001, deadline - time.perf_counter()), self.max_steps, deadline,
                           SemanticsOptions(armed=(COUNTER, k)), stats=stats, stop=stop)
        except SymexLimit as e:
            self.result.status, self.result.reason = "unknown", f"step case: {e}"
            return False
        if enc.eq.unsupported:
            self.result.status, self.result.reason = "unknown", "step case: " + "; ".join(enc.eq.unsupported)
            return False
        viol = [s.violation for s in enc.checks(self.goals)]
        if viol:
            r, _ = enc.solve(z3.Or(*viol))
            if r != "unsat":
                self.result.status = "not-inductive" if r == "sat" else "unknown"
                self.result.reason = "" if r == "sat" else f"step case: solver {r}"
                return False
        cut = [s.guard for s in enc.eq.unwinds()]
        if cut and enc.solve(z3.Or(*cut))[0] != "unsat":  # a path not finished within k + 1 arrivals
            self.result.status, self.result.reason = "unknown", "step case: a path exceeds the unwinding"
            return False
        self.result.status, self.result.reason = "proved", ""
        return True

    def houdini(self, deadline: float, stats: SolverStats, stop: Callable[[], bool] | None) -> list[Candidate]:
        """The candidates that hold at the first arrival and, all together, are kept by
        one more iteration from any state satisfying them."""
        assert self.loop is not None
        cands = candidates(self.program, self.loop)
        self.result.candidates = len(cands)
        cands = self._holding(cands, [], False, 1, deadline, stats, stop)
        while cands:
            kept = self._holding(cands, cands, True, 2, deadline, stats, stop)
            if len(kept) == len(cands):
                break
            cands = kept
        return cands

    def _holding(self, checked: list[Candidate], assumed: list[Candidate], arbitrary: bool, at: int,
                 deadline: float, stats: SolverStats, stop: Callable[[], bool] | None) -> list[Candidate]:
        """The ``checked`` candidates that hold on every path at arrival ``at``."""
        assert self.loop is not None
        if not checked:
            return []
        prog = instrument(self.program, self.loop, arbitrary=arbitrary, assumed=assumed, checked=checked,
                          check_at=at, max_arrivals=at)
        # a failed candidate must not cut the path: the ones after it are checked on it too
        enc = Encoding(prog, at + 1, {}, max(0.001, deadline - time.perf_counter()), self.max_steps, deadline,
                       SemanticsOptions(continue_kinds=frozenset({CANDIDATE})), stats=stats, stop=stop)
        if enc.eq.unsupported:
            return []
        viol: dict[int, list] = {}
        for s in enc.checks(frozenset({CANDIDATE})):
            viol.setdefault(int(s.prop_id.rsplit(":candidate", 1)[1]), []).append(s.violation)
        alive = set(range(len(checked)))
        while alive:
            goals = [v for i in alive for v in viol.get(i, [])]
            if not goals:
                break
            r, model = enc.solve(z3.Or(*goals))
            if r == "unsat":
                break
            if r != "sat" or model is None:
                return []  # undecided: no invariant is safer than a wrong one
            dead = {i for i in alive if any(z3.is_true(model.eval(v, model_completion=True)) for v in viol.get(i, []))}
            if not dead:
                return []
            alive -= dead
        return [c for i, c in enumerate(checked) if i in alive]
