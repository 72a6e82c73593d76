"""The equivalence oracle of Sigma* (Alg. 3), on the shared engine: the filter's big
steps explored symbolically from each boundary, beside the conjecture.

Sigma* compares the conjecture with a predicate abstraction of the program. Here the
abstraction is the filter's own state read back over the lookback window
(``StepExplorer.boundary``): a boundary forgets which window values lead to it, and
two boundaries with the same state, conjecture state and defined window places are
one. The search is breadth first, so the first separating input found is among the
shortest. When every boundary has been explored and every step agreed with the
conjecture, the conjecture is *proved* equivalent (the set of boundaries is an
inductive invariant of the pair). A boundary that holds an element older than the
window, a search cut by its bounds, or a separating path that no input takes (the
abstraction forgot a constraint it needed) leaves the question open: ``unknown``.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import z3

from ...automata.transducer import Transducer, window_vars
from .windows import outputs_differ, path_input, satisfiable
from ...semantics.strategies.bigstep import Boundary, StepExplorer, SymStep


@dataclass
class EquivalenceResult:
    status: str  # "equivalent" | "separated" | "unknown"
    witness: list[int] | None = None  # a separating input (status "separated")
    reason: str = ""
    boundaries: int = 0
    steps: int = 0
    solver_calls: int = 0
    depth: int = 0  # the deepest boundary explored
    time_s: float = 0.0


@dataclass
class _Node:
    boundary: Boundary
    q: int
    depth: int
    conds: tuple[z3.BoolRef, ...]  # the step conditions from the start (over each step's window)


@dataclass
class EquivalenceChecker:
    explorer: StepExplorer
    max_boundaries: int = 2000
    max_depth: int | None = None  # None: unbounded
    deadline: float | None = None
    stats: EquivalenceResult = field(default_factory=lambda: EquivalenceResult("unknown"))

    def check(self, conj: Transducer) -> EquivalenceResult:
        t0 = time.perf_counter()
        res = self._check(conj)
        res.time_s = time.perf_counter() - t0
        return res

    def _check(self, conj: Transducer) -> EquivalenceResult:
        el = self.explorer.element
        res = EquivalenceResult("unknown")
        init, b0 = self.explorer.initial()
        if init != conj.initial_output:
            return EquivalenceResult("separated", [], "the outputs before the first read differ")
        if b0 is None:
            return EquivalenceResult("unknown", reason="the filter returns before it reads")
        queue = deque([_Node(b0, conj.initial, 0, ())])
        seen = {(b0.key, conj.initial)}
        while queue:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                res.reason = "time limit"
                return res
            node = queue.popleft()
            res.boundaries += 1
            res.depth = max(res.depth, node.depth)
            steps = self.explorer.steps(node.boundary)  # LookbackExceeded: the caller widens the window
            for st in steps:
                res.steps += 1
                found = self._compare(conj, node, st, res)
                if found is not None:
                    witness = self._witness(node, found, el.bits, st.kind == "step")
                    if witness is None:
                        res.reason = ("a separating path no input takes (the boundaries forget the window "
                                      "constraints it needs)")
                        return res
                    return EquivalenceResult("separated", witness, "", res.boundaries, res.steps,
                                             res.solver_calls, res.depth)
                if st.kind != "step":
                    continue
                for m in conj.out_of(node.q):
                    en = self._enabled(m.guard, m.outputs, node.boundary.defined)
                    cond = z3.And(st.cond, en)
                    if not self._sat(cond, res):
                        continue
                    if st.next is None:
                        # the filter returned: the conjecture must stay silent on any rest
                        if self._speaks_after(conj, m.dst):
                            res.reason = "the filter returns; the conjecture may still write after it"
                            return res
                        continue
                    key = (st.next.key, m.dst)
                    if key in seen:
                        continue
                    if len(seen) >= self.max_boundaries:
                        res.reason = f"more than {self.max_boundaries} boundaries"
                        return res
                    if self.max_depth is not None and node.depth + 1 > self.max_depth:
                        res.reason = f"equal on every input of up to {self.max_depth} elements (depth bound)"
                        continue
                    seen.add(key)
                    queue.append(_Node(st.next, m.dst, node.depth + 1, node.conds + (cond,)))
        if res.reason:
            return res
        res.status = "equivalent"
        return res

    # ------------------------------------------------------------------ one step

    def _compare(self, conj: Transducer, node: _Node, st: SymStep, res: EquivalenceResult) -> z3.BoolRef | None:
        """A condition under which the step and the conjecture disagree (None: they agree)."""
        if st.kind == "end":
            finals = [f for f in conj.finals if f.src == node.q]
            earlier: list[z3.BoolRef] = []
            for f in finals:
                en = self._enabled(f.guard, f.outputs, node.boundary.defined, final=True)
                chosen = z3.And(en, *[z3.Not(e) for e in earlier])
                bad = z3.And(st.cond, chosen, outputs_differ(f.outputs, st.outputs))
                if self._sat(bad, res):
                    return bad
                earlier.append(en)
            if st.outputs:
                bad = z3.And(st.cond, *[z3.Not(e) for e in earlier])
                if self._sat(bad, res):
                    return bad
            return None
        ens = []
        for m in conj.out_of(node.q):
            en = self._enabled(m.guard, m.outputs, node.boundary.defined)
            ens.append(en)
            bad = z3.And(st.cond, en, outputs_differ(m.outputs, st.outputs))
            if self._sat(bad, res):
                return bad
        stuck = z3.And(st.cond, *[z3.Not(e) for e in ens])
        if self._sat(stuck, res):
            return stuck
        return None

    def _enabled(self, guard: z3.BoolRef, outputs: tuple, defined: int, final: bool = False) -> z3.BoolRef:
        """The guard, false when it (or an output) reads before the stream's start: in a
        step ``w0`` and ``defined`` earlier elements exist; at the end, ``w1..w<defined>``."""
        for t in (guard, *outputs):
            for j in window_vars(t):
                if (final and j == 0) or j > defined:
                    return z3.BoolVal(False)
        return guard

    def _speaks_after(self, conj: Transducer, q: int) -> bool:
        todo, seen = [q], {q}
        while todo:
            s = todo.pop()
            if any(f.outputs for f in conj.finals if f.src == s):
                return True
            for m in conj.out_of(s):
                if m.outputs:
                    return True
                if m.dst not in seen:
                    seen.add(m.dst)
                    todo.append(m.dst)
        return False

    def _sat(self, f: z3.BoolRef, res: EquivalenceResult) -> bool:
        res.solver_calls += 1
        return satisfiable(f, self.deadline)

    # ------------------------------------------------------------------ witnesses

    def _witness(self, node: _Node, bad: z3.BoolRef, bits: int, step: bool) -> list[int] | None:
        """An input taking the path to ``node`` and then the disagreeing step."""
        n = len(node.conds)
        return path_input(list(node.conds) + [bad], bits, n + 1 if step else n)
