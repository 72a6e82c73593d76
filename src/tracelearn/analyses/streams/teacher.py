"""The teacher of Sigma*'s table: words of guards to inputs (witnesses, one solver
call each) and inputs to runs (concolic big steps, cached), with the counts."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import z3

from ...automata.transducer import Transducer
from ...automata.transducer_paths import at_position, satisfiable, solve_input, solver
from ...z3dag import bv_numerals, signed
from .windows import outputs_differ
from ...learning.symbolic_table import Letter, Observation, Word
from ...semantics.strategies.bigstep import FilterError, FilterRunner, LookbackExceeded, StreamRun
from ...querytime import at_deadline
from ...semantics.strategies.stepwalk import StepsMissed, StepWalker

TRUE_FINAL = Letter(z3.BoolVal(True), "true", final=True)


@dataclass
class StreamStats:
    membership: int = 0  # runs asked for (cache hits included)
    runs: int = 0  # runs made
    solver_calls: int = 0
    equivalence: int = 0
    tests: int = 0  # inputs run by the testing oracle


class WalkFailed(Exception):
    """A walk over the explored big steps could not answer a run (a state holds an
    element older than the window, a path the solver cannot decide): the learner
    starts again with concolic runs, which need neither (their answer, or their error
    with the input and its place in the filter, is the program's own)."""


class FilterTeacher:
    def __init__(self, runner: FilterRunner | StepWalker, max_lookback: int = 8, lookback_given: bool = False,
                 deadline: float | None = None) -> None:
        self.runner = runner
        self.deadline = deadline  # past it, a run raises TimeoutError("time limit")
        self.el = runner.element
        self.max_lookback = max_lookback
        self.lookback_given = lookback_given
        self.stats = StreamStats()
        self._cache: dict[tuple[int, ...], tuple[StreamRun, Observation]] = {}
        self._classes: dict[str, str] = {}  # output sequence (text) -> its class's name
        self._reps: list[tuple[str, z3.BoolRef, tuple[z3.ExprRef, ...]]] = []  # name, guard, first member
        self.initial_output: tuple[int, ...] | None = None
        self._placed: dict[tuple[int, int], tuple[z3.BoolRef, z3.BoolRef]] = {}  # (guard id, position)
        self._witnesses = solver()  # the witness questions, each in a scope of its own

    # ------------------------------------------------------------------ runs

    def run(self, values: list[int]) -> tuple[StreamRun, Observation]:
        key = tuple(self.el.wrap(v) for v in values)
        self.stats.membership += 1
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise TimeoutError("time limit")
        self.stats.runs += 1
        try:
            r = self.runner.run(list(key))
        except (LookbackExceeded, StepsMissed, TimeoutError) as e:
            # the walk's limits, not the filter's: a filter outside the class (a filter
            # error) is outside it on either route; the time limit ends either
            if isinstance(self.runner, StepWalker) and not at_deadline(self.deadline):
                raise WalkFailed(str(e)) from e
            raise
        self._in_class(r, key)
        if self.initial_output is None:
            self.initial_output = r.initial
        letters = [Letter(s.predicate, s.key) for s in r.steps]
        outputs = [s.outputs for s in r.steps]
        if r.final is not None:
            letters.append(Letter(r.final.predicate, r.final.key, final=True))
            outputs.append(r.final.outputs)
        else:
            letters.append(TRUE_FINAL)
            outputs.append(())
        obs = Observation(tuple(letters), tuple(outputs), list(key))
        self._cache[key] = (r, obs)
        return r, obs

    def probe(self, runner: FilterRunner, values: list[int]) -> None:
        """A concolic run of ``values`` that only checks the class (a filter whose steps
        read further back than the bound is outside it): said at once, by the program's
        own run, before a walk explores steps from states that keep the whole input."""
        key = tuple(self.el.wrap(v) for v in values)
        self.stats.membership += 1
        self.stats.runs += 1
        self._in_class(runner.run(list(key)), key, runner)

    def _in_class(self, r: StreamRun, key: tuple[int, ...], runner: FilterRunner | StepWalker | None = None) -> None:
        if r.lookback <= self.max_lookback:
            return
        runner = runner if runner is not None else self.runner
        further = self._lookback_of(runner, key + key)
        if further is not None and further > r.lookback:
            # (the same input twice over reads further back still: a larger bound would
            # only move the failure to a longer input)
            why = (f"and on that input twice over {further} positions back: the dependence grows with "
                   f"the input, and no --lookback bound covers it")
        elif self.lookback_given:
            why = f"beyond --lookback {self.max_lookback}"
        else:
            why = f"beyond the lookback bound {self.max_lookback} (raise it with --lookback)"
        raise FilterError(f"on input {list(key)} a guard or output depends on the element "
                          f"{r.lookback} positions back, {why}: the filter is outside the class "
                          f"(its outputs must depend on the last k inputs)",
                          self.runner.program.procedures[self.runner.function].loc)

    def _lookback_of(self, runner: FilterRunner | StepWalker, key: tuple[int, ...]) -> int | None:
        """How far back the run of ``key`` reads (None: the run did not end in time)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return None
        try:
            return runner.run(list(key)).lookback
        except (FilterError, LookbackExceeded, StepsMissed, TimeoutError):
            return None

    # ------------------------------------------------------------------ witnesses

    def _at(self, g: z3.BoolRef, i: int) -> z3.BoolRef:
        """False when the guard reads before the stream's start (cached: the table puts
        its few guards at the same few positions again and again)."""
        hit = self._placed.get((g.get_id(), i))
        if hit is not None and hit[0].eq(g):
            return hit[1]
        p = at_position(g, i, self.el.bits)
        placed = z3.BoolVal(False) if p is None else p
        self._placed[(g.get_id(), i)] = (g, placed)  # g kept: its id is not reused
        return placed

    def _solve(self, cons: list[z3.BoolRef], n: int) -> list[int] | None:
        # the time limit here too: a table whose words' inputs are all cached runs asks
        # only these. (No solver timeout: z3 answers with other models when one is set,
        # and the table's witnesses, so what is learned, would change.)
        if at_deadline(self.deadline):
            raise TimeoutError("time limit")
        self.stats.solver_calls += 1
        return solve_input(cons, n, self.el.bits, self._witnesses)

    def _constraints(self, word: Word) -> tuple[list[z3.BoolRef], int]:
        steps = [a for a in word if not a.final]
        cons = [self._at(a.guard, i) for i, a in enumerate(steps)]
        if word and word[-1].final:
            cons.append(self._at(word[-1].guard, len(steps)))
        return cons, len(steps)

    def execute(self, word: Word) -> Observation | None:
        cons, n = self._constraints(word)
        values = self._solve(cons, n)
        return None if values is None else self.run(values)[1]

    def extend(self, word: Word, excluded: list[Letter], final: bool) -> Observation | None:
        cons, n = self._constraints(word)
        cons.extend(z3.Not(self._at(a.guard, n)) for a in excluded)
        values = self._solve(cons, n + (0 if final else 1))
        return None if values is None else self.run(values)[1]

    # ------------------------------------------------------------------ semantic entries

    def output_class(self, outputs: tuple[z3.ExprRef, ...], guard: z3.BoolRef) -> str:
        """The class of the output sequences written under ``guard`` (a step's letter)
        that equal ``outputs`` on every window the guard admits: compared with each
        class's first member (a solver call each, the answer kept per text)."""
        text = guard.sexpr() + " -> [" + ", ".join(o.sexpr() for o in outputs) + "]"
        hit = self._classes.get(text)
        if hit is not None:
            return hit
        for name, g, rep in self._reps:
            if len(rep) != len(outputs) or not g.eq(guard) or any(a.sort() != b.sort() for a, b in zip(rep, outputs)):
                continue
            if not outputs or not self._satisfiable(z3.And(guard, outputs_differ(rep, outputs))):
                self._classes[text] = name
                return name
        name = f"#{len(self._reps)}"
        self._reps.append((name, guard, outputs))
        self._classes[text] = name
        return name

    def _satisfiable(self, f: z3.BoolRef) -> bool:
        self.stats.solver_calls += 1
        return satisfiable(f)

    # ------------------------------------------------------------------ testing oracle

    def test(self, conj: Transducer, count: int, max_len: int, seed: int,
             constants: list[int]) -> list[int] | None:
        """The shortest of ``count`` inputs (lengths 0..max_len, at least 30% of the
        elements drawn from the guards' constants and their neighbours) on which the
        conjecture and the program write different outputs, or None."""
        rng = random.Random(seed)
        pool = sorted({self.el.wrap(c + d) for c in constants for d in (-1, 0, 1)}) or [0]
        inputs = []
        for _ in range(count):
            n = rng.randint(0, max_len)
            inputs.append([rng.choice(pool) if rng.random() < 0.5 else rng.randint(self.el.lo, self.el.hi)
                           for _ in range(n)])
        inputs.sort(key=len)
        self.stats.equivalence += 1
        for v in inputs:
            self.stats.tests += 1
            r, _ = self.run(v)
            if conj.run(v) != r.outputs:
                return v
        return None


def constants_of(t: Transducer) -> list[int]:
    """The constants in the transducer's guards (signed, element width and 32-bit)."""
    guards = [m.guard for m in t.moves + t.finals]  # type: ignore[operator]
    return sorted({signed(v, w) for v, w in bv_numerals(guards)})
