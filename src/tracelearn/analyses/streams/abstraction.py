"""Sigma*'s equivalence oracle as the paper builds it (Alg. 3): the conjecture against
a predicate abstraction of the filter (``semantics.strategies.abstract_steps``),
refined until the two agree or a separating input is real.

The abstraction is searched beside the conjecture by the same product search as the
concrete boundaries (``EquivalenceChecker``, its steps from abstract boundaries). A
separating input is replayed on the filter: if the filter and the conjecture differ on
it, it refines the conjecture (returned, "separated"); if they agree, the abstraction's
run was spurious, and the weakest precondition of that run adds predicates (an
*abstraction refinement*). The search proving every abstract step agrees proves the
conjecture: the abstraction has every run of the filter.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from ...automata.transducer import OUT_BITS, Transducer
from ...bvterm import TermFacts, window_vars
from ...semantics.strategies.abstract_steps import (AbstractBoundary, AbstractExplorer, AbstractionUnsupported,
                                                    AbstractStep, predicate_text,
                                                    weakest_precondition_atoms)
from ...z3dag import signed
from .equivalence import EquivalenceChecker, EquivalenceResult

# what a replay gives: each step's outputs on the input, the end's last
Replay = Callable[[list[int]], list[list[int]]]


@dataclass
class AbstractionRefinement:
    """A spurious separating input, and the predicates its abstract run added."""

    input: list[int]
    predicates: list[str]


@dataclass
class AbstractionChecker:
    abstraction: AbstractExplorer
    replay: Replay
    max_boundaries: int = 5000
    max_depth: int | None = None
    deadline: float | None = None
    max_refinements: int = 50
    facts: TermFacts = field(default_factory=TermFacts, repr=False)
    refinements: list[AbstractionRefinement] = field(default_factory=list)  # over every query

    def check(self, conj: Transducer) -> EquivalenceResult:
        t0 = time.perf_counter()
        total = EquivalenceResult("unknown")
        try:
            res = self._check(conj, total)
        except AbstractionUnsupported as e:
            res = EquivalenceResult("unknown", reason=f"the predicate abstraction cannot keep this filter: {e}")
        res.boundaries, res.steps, res.depth = total.boundaries, total.steps, total.depth
        res.solver_calls = total.solver_calls
        res.time_s = time.perf_counter() - t0
        return res

    def _check(self, conj: Transducer, total: EquivalenceResult) -> EquivalenceResult:
        while True:
            before = self.abstraction.solver_calls
            eq = EquivalenceChecker(self.abstraction, self.max_boundaries, self.max_depth, self.deadline,
                                    max_witnesses=1, facts=self.facts).check(conj)  # type: ignore[arg-type]
            total.boundaries += eq.boundaries
            total.steps += eq.steps
            total.depth = max(total.depth, eq.depth)
            total.solver_calls += eq.solver_calls + self.abstraction.solver_calls - before
            if eq.status != "separated":
                return eq
            assert eq.witness is not None
            w = eq.witness
            program = self.replay(w)
            if program != conj.trace(w):
                return eq  # real: the conjecture is refined with it
            path = self.spurious_run(w, program)
            if path is None:
                return EquivalenceResult("unknown", reason=f"the abstraction separates the conjecture on {w}, "
                                                           "but no run of it on that input differs from the filter")
            new = self.abstraction.refine(weakest_precondition_atoms(path))
            if not new:
                return EquivalenceResult("unknown", reason=f"the spurious run on {w} gives no new predicate: the "
                                                           "predicate selection cannot refine the abstraction")
            self.refinements.append(AbstractionRefinement(w, [predicate_text(p) for p in new]))
            if len(self.refinements) >= self.max_refinements:
                return EquivalenceResult("unknown", reason=f"{self.max_refinements} abstraction refinements")

    def spurious_run(self, values: list[int], program: list[list[int]]) -> list[AbstractStep] | None:
        """A run of the abstraction on ``values`` whose outputs differ from the filter's
        at some step (the abstract steps up to there), breadth first; one run per
        abstract boundary and position."""
        _, b0 = self.abstraction.initial()
        if b0 is None:
            return None
        frontier: dict[tuple, tuple[AbstractBoundary, list[AbstractStep]]] = {b0.key: (b0, [])}
        n = len(values)
        bits = self.abstraction.element.bits
        for t in range(n + 1):
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise TimeoutError("time limit")
            env = {j: values[t - j] for j in range(0 if t < n else 1, self.abstraction.k + 1) if t - j >= 0}
            kind = "step" if t < n else "end"
            nxt: dict[tuple, tuple[AbstractBoundary, list[AbstractStep]]] = {}
            for b, path in frontier.values():
                for st in self.abstraction.steps(b):
                    if st.kind != kind or not _holds(st.cond, st.outputs, env, bits):
                        continue
                    outs = [_value(o, env, bits) for o in st.outputs]
                    want = program[t] if t < len(program) else []
                    if outs != want:
                        return path + [st]
                    if st.next is not None and st.next.key not in nxt:
                        nxt[st.next.key] = (st.next, path + [st])
            frontier = nxt
        return None


def _env(env: dict[int, int], bits: int) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    return [(z3.BitVec(f"w{j}", bits), z3.BitVecVal(v, bits)) for j, v in env.items()]


def _holds(cond: z3.BoolRef, outputs: tuple, env: dict[int, int], bits: int) -> bool:
    """Is the step enabled on the window ``env`` (a place it reads that is not there,
    before the stream's start, disables it)?"""
    for t in (cond, *outputs):
        if not window_vars(t) <= env.keys():
            return False
    return z3.is_true(z3.simplify(z3.substitute(cond, *_env(env, bits))))


def _value(t: z3.ExprRef, env: dict[int, int], bits: int) -> int:
    v = z3.simplify(z3.substitute(t, *_env(env, bits)))
    return signed(v.as_long(), v.size() if z3.is_bv(v) else OUT_BITS)
