"""Bounded model checking on one incremental encoding.

``Encoding`` is the program unwound to one bound, asserted once into one z3
solver; every question (is a check violated? can a loop exceed the bound? is
there a path with these events?) is posed as assumptions or temporary
constraints on it. ``check`` deepens the bound until it has a verdict.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import z3

from ..ir.program import Program
from .equation import Equation, Step
from ..bigstack import run_with_big_stack
from ..z3dag import assert_all
from .bitblast import BitBlastSession
from .bitwuzla_backend import BitwuzlaSession, BitwuzlaWorker, check_bitwuzla, settled
from .solving import QuickShare, after_stop, check_fresh, interrupt_main_context
from .strategies.unwind import MergedUnwinding, UnwindOptions
from .symbolic import SemanticsOptions, SymbolicSemantics, SymexLimit
from .targets import EquationTarget


# A query's time on z3's incremental core before the bit-blasted session (or a fresh
# solver) is asked; after a query only they answered, the next gets the shorter share (a
# program whose queries the incremental core cannot do lost 1 s on each).
INCREMENTAL_S = 1.0
INCREMENTAL_AFTER_FRESH_S = 0.1
# Smaller equations stay on z3, which answers them in milliseconds: starting the
# Bitwuzla process and sending the text cost a small check 0.1-0.15 s.
BITWUZLA_MIN_CONSTRAINTS = 1000


@dataclass
class SolverStats:
    calls: int = 0
    time_s: float = 0.0
    encode_time_s: float = 0.0
    constraints: int = 0
    steps: int = 0
    fresh_calls: int = 0  # of ``calls``: answered by a fresh solver (``solving.check_fresh``)
    bitblast_calls: int = 0  # of ``calls``: answered by the bit-blasted session (``bitblast``)
    bitwuzla_calls: int = 0  # of ``calls``: settled by Bitwuzla (``bitwuzla_backend``; a stop included)

    def add(self, other: "SolverStats") -> None:
        self.calls += other.calls
        self.fresh_calls += other.fresh_calls
        self.bitblast_calls += other.bitblast_calls
        self.bitwuzla_calls += other.bitwuzla_calls
        self.time_s += other.time_s
        self.encode_time_s += other.encode_time_s
        self.constraints = max(self.constraints, other.constraints)
        self.steps = max(self.steps, other.steps)

    def to_json(self) -> dict:
        return {"solver_calls": self.calls, "solver_time_s": round(self.time_s, 4),
                "encoding_time_s": round(self.encode_time_s, 4), "formula_size": self.constraints,
                "equation_steps": self.steps, "fresh_solver_calls": self.fresh_calls,
                "bitblasted_solver_calls": self.bitblast_calls,
                "bitwuzla_solver_calls": self.bitwuzla_calls}


class Encoding:
    """The program unwound to ``bound`` (merged exploration into an equation target),
    asserted into one incremental solver."""

    # (defaults for the subclasses that derive ``eq`` their own way: no stop, z3 alone)
    stop: Callable[[], bool] | None = None
    bitwuzla: BitwuzlaWorker | None = None

    def __init__(self, program: Program, bound: int, loop_bounds: dict[str, int] | None = None,
                 timeout_s: float | None = None, max_steps: int = 2_000_000, deadline: float | None = None,
                 semantics: SemanticsOptions | None = None, unwinding: UnwindOptions | None = None,
                 stats: SolverStats | None = None, stop: Callable[[], bool] | None = None,
                 bitwuzla: BitwuzlaWorker | None = None) -> None:
        """``stats``: where solver calls and times are counted (the caller's, shared:
        nothing is copied between counters afterwards); ``stop``: asked while unwinding,
        true ends it early (another strategy of a portfolio answered); ``bitwuzla``: the
        process one-off queries go to first (None: z3 alone)."""
        t0 = time.perf_counter()
        self.program = program
        self.bound = bound
        sem_opts = semantics or SemanticsOptions()
        sem_opts.max_steps = max_steps
        unwind = unwinding or UnwindOptions()
        unwind.bound = bound
        unwind.loop_bounds = dict(loop_bounds or unwind.loop_bounds)
        sem = SymbolicSemantics(program, sem_opts, EquationTarget(bound))
        sem.deadline = deadline
        sem.stop = stop
        strategy = MergedUnwinding(sem, unwind, bitwuzla)
        self.deadline = deadline  # every query gets the time left before it
        self.stop = stop
        self.bitwuzla = bitwuzla
        try:
            self.eq: Equation = run_with_big_stack(strategy.run, interrupt_main_context)
        except RecursionError:
            raise SymexLimit("program nests calls too deeply for the unwinding") from None
        except BaseException as e:
            after_stop(e)
            raise
        self.semantics = sem
        self._start_solver(timeout_s, stats)
        self.stats.calls += strategy.prune_calls
        self.stats.fresh_calls += strategy.prune_solver.fresh_calls
        self.stats.bitwuzla_calls += strategy.prune_solver.bitwuzla_calls
        self.stats.time_s += strategy.prune_time
        self.stats.encode_time_s += time.perf_counter() - t0 - strategy.prune_time

    def _start_solver(self, timeout_s: float | None, stats: SolverStats | None) -> None:
        """The incremental solver holding ``self.eq``, and the counters it reports to
        (the encodings' common part: each derives ``self.eq`` its own way)."""
        self.solver = z3.Solver()
        self.timeout_ms = max(1, int(timeout_s * 1000)) if timeout_s is not None else None
        self.last_unknown = ""  # why the last query was unknown
        if self.timeout_ms is not None:
            self.solver.set("timeout", self.timeout_ms)
        self.kept: list[z3.BoolRef] = []  # what ``solver`` holds, for the other solvers
        self.add(*self.eq.constraints)
        self.stats = stats if stats is not None else SolverStats()
        self.stats.constraints = max(self.stats.constraints, len(self.eq.constraints))
        self.stats.steps = max(self.stats.steps, len(self.eq.steps))
        self._lits = 0
        self._quick = QuickShare(INCREMENTAL_S, INCREMENTAL_AFTER_FRESH_S)
        # Queries under assumptions: bit-blasted once (started at the first such query,
        # with every constraint added by then), z3 as below once it is beyond that
        self.bitblast = BitBlastSession(self.solver)
        self._session: BitwuzlaSession | None = None  # queries under assumptions in Bitwuzla

    def set_timeout(self, seconds: float | None) -> None:
        if seconds is not None:
            self.timeout_ms = max(1, int(seconds * 1000))
            self.solver.set("timeout", self.timeout_ms)

    def add(self, *constraints: z3.BoolRef) -> None:
        """Keep ``constraints`` for every query from now on."""
        assert_all(self.solver, list(constraints))
        self.kept.extend(constraints)

    def _held(self) -> list[z3.BoolRef]:
        """The solver's assertions (read from z3 only while a caller has pushed its own:
        reading them back cost a learning run 3.4 s)."""
        return self.kept if self.solver.num_scopes() == 0 else list(self.solver.assertions())

    def literal(self, goal: z3.BoolRef) -> z3.BoolRef:
        """A fresh assumption literal implying ``goal`` (incremental: no push/pop)."""
        self._lits += 1
        lit = z3.Bool(f"goal#{self._lits}")
        self.add(z3.Implies(lit, goal))
        return lit

    def solve(self, goal: z3.BoolRef | None = None, assumptions: list[z3.BoolRef] | None = None,
              extra: list[z3.BoolRef] | None = None) -> tuple[str, z3.ModelRef | None]:
        """``sat``/``unsat``/``unknown`` and a model for sat."""
        if goal is not None and not assumptions and not extra:
            return self._solve_once(goal)
        assumptions = list(assumptions or [])
        if goal is not None:
            assumptions.append(self.literal(goal))
        t0 = time.perf_counter()
        try:
            return self._solve_assumed(assumptions, extra)
        finally:
            self.stats.calls += 1
            self.stats.time_s += time.perf_counter() - t0

    def _solve_assumed(self, assumptions: list[z3.BoolRef], extra: list[z3.BoolRef] | None
                       ) -> tuple[str, z3.ModelRef | None]:
        """z3's incremental core for a share of the time (it answers most queries of most
        programs in milliseconds), then the bit-blasted session and Bitwuzla's (the first
        of the two: ``BitBlastSession.preferred``), then a fresh solver."""
        if extra:
            self.solver.push()
            self.solver.add(*extra)
        try:
            r, model, final = self._quick.ask(self.solver, assumptions, self.deadline)
            why = self.solver.reason_unknown() if final and r == z3.unknown else ""
        finally:
            if extra:
                self.solver.pop()
        if final:
            self.last_unknown = why
            return str(r), model
        asks = (self._bitblasted, self._bitwuzla) if self.bitblast.preferred() else (self._bitwuzla, self._bitblasted)
        for ask in asks:
            t0 = time.perf_counter()
            got = ask(assumptions, extra)
            if got is not None:
                r, model, self.last_unknown = got
                if r != z3.unknown:
                    self._quick.elsewhere(time.perf_counter() - t0)
                return str(r), model
        r, model, self.last_unknown = check_fresh(self._held() + list(extra or []), assumptions,
                                                  self.deadline)
        self.stats.fresh_calls += 1
        return str(r), model

    def _bitblasted(self, assumptions: list[z3.BoolRef], extra: list[z3.BoolRef] | None
                    ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str] | None:
        """The bit-blasted session's answer (its unknown included: it had the time), or
        None where the query or the equation is beyond it."""
        out = self.bitblast.check(assumptions, extra, self.deadline, self.timeout_ms)
        if out is None:
            return None
        r, model = out
        self.stats.bitblast_calls += 1
        return r, model, self.bitblast.reason_unknown() if r == z3.unknown else ""

    def close_session(self) -> None:
        """Ends this encoding's formula in Bitwuzla's process (called when an analysis
        moves on to another encoding; a later query would start it again)."""
        if self._session is not None:
            self._session.close()
            self._session = None

    def _query_deadline(self) -> float | None:
        """When a query asked now must end: the analysis's deadline, else the per-query
        time limit from now (Bitwuzla's wait takes a deadline only)."""
        if self.deadline is None and self.timeout_ms is not None:
            return time.perf_counter() + self.timeout_ms / 1000
        return self.deadline

    def _bitwuzla(self, assumptions: list[z3.BoolRef], extra: list[z3.BoolRef] | None
                  ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str] | None:
        """Bitwuzla's answer to a query under assumptions (on a 5,650-line program of
        floats, the first learning query took 52 s in the bit-blasted session and 2.3 s in
        Bitwuzla); None where it has none."""
        if self.bitwuzla is None:
            return None
        deadline = self._query_deadline()
        if self._session is None:
            self._session = BitwuzlaSession(self.bitwuzla)
        out = self._session.check(self._held(), list(extra or []), list(assumptions),
                                  deadline, self.stop)
        if not settled(out):
            return None
        self.stats.bitwuzla_calls += 1
        return out

    def _solve_once(self, goal: z3.BoolRef) -> tuple[str, z3.ModelRef | None]:
        """A one-off query on a fresh solver: z3 preprocesses a solver's first, assumption-free
        check (equation solving, bit-blasting), but answers on an incrementally used one with
        its incremental core, which on a csmith program's equation took 101 s against 0.8 s.
        Bitwuzla is asked first (``bitwuzla_backend``), z3 when it cannot take the formula
        or gave up before the time limit."""
        t0 = time.perf_counter()
        try:
            deadline = self._query_deadline()
            big = len(self.eq.constraints) >= BITWUZLA_MIN_CONSTRAINTS
            out = None if self.bitwuzla is None or not big else check_bitwuzla(
                self.bitwuzla, list(self.eq.constraints) + [goal], deadline, self.stop)
            if settled(out):
                self.stats.bitwuzla_calls += 1
                r, model, self.last_unknown = out
                return str(r), model
            r, model, self.last_unknown = check_fresh(self.eq.constraints, [goal], self.deadline, self.timeout_ms)
        finally:
            self.stats.calls += 1
            self.stats.time_s += time.perf_counter() - t0
        return str(r), model

    def checks(self, kinds: frozenset[str]) -> list[Step]:
        return self.eq.checks(kinds)
