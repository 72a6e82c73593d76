"""Runs of a stream filter over its explored big steps: a membership query of
Sigma*'s table answered by following, element by element, the one symbolic step
(:class:`StepExplorer`) whose condition the input's window satisfies.

A concolic run (:class:`FilterRunner`) executes the filter's code for every query; a
walk executes it once per boundary the queries reach (every path of a big step,
symbolically) and then only evaluates conditions, so the table's many runs through
the same few states cost a dictionary lookup per element once their steps are known.
The answer is a :class:`StreamRun` like the concolic one: a step's guard is the path's
conditions in path order, read back as the concolic run reads them. The text can still
differ where the state holds a sign-extended element (z3 splits that comparison; the
two are equivalent), so a learner uses one route for a whole table (the syntactic
comparison of entries relies on it)."""

from __future__ import annotations

from collections.abc import Callable

import z3

from ...bvterm import Fn, TermFacts, Undefined
from ...z3dag import signed, substitute
from .bigstep import BigStep, Boundary, FilterError, LookbackExceeded, StepExplorer, StreamRun, SymStep, not_input, simp


class StepsMissed(Exception):
    """No explored step answers a run (a disagreement between the explorer and the
    input that would be a defect of the walk): the caller runs concolically instead."""


class StepWalker:
    """``run(values)`` as :meth:`FilterRunner.run`, through the steps of
    ``explorers(k)``: its window ``k`` starts at ``k`` and widens, up to ``max_k``, when
    a state holds an older element (``LookbackExceeded`` past ``max_k``). A step's
    condition does not depend on the window's width (only which states count as one
    does), so the runs before and after a widening agree."""

    def __init__(self, explorers: Callable[[int], StepExplorer], k: int, max_k: int,
                 before_widening: Callable[[], None] | None = None, facts: TermFacts | None = None) -> None:
        self.explorers = explorers
        self.before_widening = before_widening  # called once, before the first widening past 2
        self.k = k
        self.max_k = max_k
        self.explorer = explorers(k)
        self.element = self.explorer.element
        self.program = self.explorer.program
        self.function = self.explorer.function
        self.runs = 0
        self.boundaries = 0  # boundaries whose steps were asked for
        self.picks = 0  # steps chosen by evaluating conditions (the rest came from the memo)
        self.facts = facts if facts is not None else TermFacts()  # places read, closures
        self._big: dict[int, tuple[SymStep, BigStep]] = {}  # the run's step of each explored step
        # boundary key -> its steps, the places their conditions read, and the chosen
        # step per window (the values at those places)
        self._at: dict[tuple, tuple[list[SymStep], tuple[int, ...], dict[tuple, int]]] = {}

    def run(self, values: list[int]) -> StreamRun:
        while True:
            try:
                return self._run(values)
            except LookbackExceeded as e:
                # (a window of two, an escaper holding a lead byte, is cheap to widen to:
                # the hook, a long concolic run, is for states holding more)
                if self.before_widening is not None and max(self.k + 1, e.place) > 2:
                    hook, self.before_widening = self.before_widening, None
                    hook()
                if e.place > self.max_k:
                    raise
                self.k = max(self.k + 1, e.place)
                self.explorer = self.explorers(self.k)
                self._at.clear()  # the wider window's boundaries are other objects

    def _run(self, values: list[int]) -> StreamRun:
        el = self.element
        values = [el.wrap(v) for v in values]
        self.runs += 1
        initial, b = self.explorer.initial()
        steps: list[BigStep] = []
        outputs: list[int] = list(initial)
        lookback = 0
        final: BigStep | None = None
        how = "return"
        n = len(values)
        i = 0
        while b is not None and i <= n:
            window = {j: values[i - j] for j in range(0 if i < n else 1, min(i, self.explorer.k) + 1)}
            step = self._pick(b, window, "step" if i < n else "end")
            reads = self._reads(step.cond).union(*(self._reads(o) for o in step.outputs))
            if reads - window.keys():
                raise StepsMissed(f"a step at position {i} reads the window places {sorted(reads - window.keys())}, "
                                  f"which the input does not have")
            lookback = max(lookback, max(reads, default=0))
            if step.outputs:
                env = self._env(window)
                outputs.extend(self._concrete(o, window, env) for o in step.outputs)
            big = self._big_step(step)
            if i == n:
                if self.explorer.ends_at_eof(b):
                    final, how = big, "final"
                else:
                    how = "read"
                break
            steps.append(big)
            b = step.next
            i += 1
        while len(steps) < n:  # the filter returned: it ignores the rest
            steps.append(BigStep((), ()))
        return StreamRun(tuple(initial), steps, final, outputs, how, lookback, 0)

    # ------------------------------------------------------------------ helpers

    def _pick(self, b: Boundary, window: dict[int, int], kind: str) -> SymStep:
        at = self._at.get(b.key)
        if at is None:
            found = self.explorer.steps(b)
            self.boundaries += 1
            places = sorted(set().union(*(self._reads(s.cond) for s in found)))
            at = (found, tuple(places), {})
            self._at[b.key] = at
        found, places, memo = at
        seen = (kind,) + tuple(window.get(j, 0) for j in places)
        hit = memo.get(seen)
        if hit is not None:
            return found[hit]
        self.picks += 1
        env = self._env(window)
        for idx, s in enumerate(found):
            if s.kind == kind and self._holds(s.cond, window, env):
                memo[seen] = idx
                return s
        raise StepsMissed(f"no big step of the filter from this state takes the window {window}")

    def _big_step(self, step: SymStep) -> BigStep:
        hit = self._big.get(id(step))
        if hit is None or hit[0] is not step:
            hit = (step, BigStep(step.guard, step.outputs, self.facts.text))  # step kept: its id is not reused
            self._big[id(step)] = hit
        return hit[1]

    def _reads(self, t: z3.ExprRef) -> frozenset[int]:
        return self.facts.places(t)

    # A condition or output is evaluated by its compiled closure (the walk's inner loop:
    # a z3 substitute and simplify per step tried, through the Python API, cost more
    # than the evaluation); what the closure cannot take (None), z3 evaluates.

    def _env(self, window: dict[int, int]) -> dict[str, int | None]:
        mask = (1 << self.element.bits) - 1
        return {f"w{j}": v & mask for j, v in window.items()}

    def _fn(self, t: z3.ExprRef) -> Fn | None:
        return self.facts.fn(t)

    def _holds(self, cond: z3.BoolRef, window: dict[int, int], env: dict[str, int | None]) -> bool:
        fn = self._fn(cond)
        if fn is not None:
            try:
                return bool(fn(env))
            except Undefined:
                pass  # it names a value other than the window's: z3 says what it reduces to
        return z3.is_true(self._value(cond, window))

    def _value(self, t: z3.ExprRef, window: dict[int, int]) -> z3.ExprRef:
        el = self.element
        sub = [(el.window(j), z3.BitVecVal(window[j], el.bits)) for j in self._reads(t) if j in window]
        return simp(substitute(t, sub)) if sub else simp(t)

    def _concrete(self, t: z3.ExprRef, window: dict[int, int], env: dict[str, int | None]) -> int:
        fn = self._fn(t)
        if fn is not None:
            try:
                return signed(int(fn(env)), t.size())  # type: ignore[call-overload]
            except Undefined:
                pass
        e = self._value(t, window)
        if not z3.is_bv_value(e):
            raise FilterError(not_input("an output", t), self._loc())
        return e.as_signed_long()

    def _loc(self):
        return self.program.procedures[self.function].loc
