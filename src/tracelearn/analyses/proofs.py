"""Unbounded proofs beside the bounded model checker: the Horn-clause strategy run by
Spacer on a thread of its own, so that ``check`` is a portfolio (the first answer
wins: a bug from the model checker, a proof from the Horn clauses).

A proof covers every check of the given kinds on every path at any depth, with the
program's exact (bit-precise) semantics. A program outside the encoding (see
``semantics.strategies.horn``) gets ``refused`` with the reason, never a proof.
"""

from __future__ import annotations

import gc
import threading
import time
from dataclasses import dataclass, field
from typing import Callable


from ..bigstack import interrupt_until_done, run_with_big_stack
from ..forked import ChildLost, Forked, can_fork
from ..ir.program import Program
from ..semantics.chc import SPACER_FIRST_S, HornAnswer, HornRun, Invariant
from ..semantics.strategies.horn import HornEncoding
from ..semantics.summaries import sample_summaries
from ..semantics.symbolic import SemanticsOptions, SymbolicSemantics, SymexLimit
from ..semantics.targets import ClauseTarget

PROVE_CHOICES = ("none", "kind", "chc", "all")  # "all": every proof strategy tracelearn has


@dataclass(frozen=True)
class ProofBudget:
    """How a Horn-clause proof shares its time between its stages (seconds, each at
    most; the stages also get at most a share of the time left)."""

    spacer_first_s: float = SPACER_FIRST_S  # Spacer alone first (0: the lemma stage first)
    sample_s: float = 2.0  # concrete calls of the procedures (facts of their summaries)
    lemma_s: float = 20.0  # the summary lemmas, before Spacer runs with them


@dataclass
class ProofResult:
    method: str  # "chc"
    status: str  # proved | reachable | unknown | refused | stopped
    reason: str = ""
    invariants: list[Invariant] = field(default_factory=list)
    time_s: float = 0.0
    clauses: int = 0
    predicates: int = 0
    arithmetic: str = ""  # what Spacer solved: "integer" (the exact translation) or "bit-vector"
    solver: str = ""  # "lemmas" (Houdini's summary lemmas alone), "spacer", "spacer+lemmas"
    lemmas: int = 0
    lemma_queries: int = 0

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    def to_json(self) -> dict:
        return {"method": self.method, "status": self.status, "reason": self.reason or None,
                "time_s": round(self.time_s, 4), "clauses": self.clauses, "predicates": self.predicates,
                "arithmetic": self.arithmetic or None, "solver": self.solver or None, "lemmas": self.lemmas,
                "lemma_queries": self.lemma_queries,
                "invariants": [i.to_json() for i in self.invariants]}


def encode(program: Program, goal_kinds: frozenset[str], deadline: float | None) -> tuple[HornRun | None, ProofResult | None]:
    """The program's Horn clauses ready to solve, or why there are none."""
    t0 = time.perf_counter()
    sem = SymbolicSemantics(program, SemanticsOptions(), ClauseTarget())
    sem.deadline = deadline
    try:
        system = run_with_big_stack(HornEncoding(sem, goal_kinds).run)
    except (SymexLimit, RecursionError) as e:
        return None, ProofResult("chc", "unknown", f"encoding: {e}", time_s=time.perf_counter() - t0)
    if system.refused:
        return None, ProofResult("chc", "refused", f"outside the Horn encoding: {system.refused}",
                                 time_s=time.perf_counter() - t0)
    if system.unsupported:
        return None, ProofResult("chc", "refused", "unsupported: " + "; ".join(system.unsupported),
                                 time_s=time.perf_counter() - t0)
    return HornRun(system), None


class HornProof:
    """A Horn-clause proof attempt beside the model checker: in a forked process when
    this process runs one thread (``forked.py``: the lemma stage and the concrete calls
    are Python code, which on a thread would slow every z3 call of the model checker),
    else on a thread. ``on_proved`` is called (on a thread of this process) when the
    proof is found, e.g. to interrupt the model checker. ``nice``: its process's
    priority is lowered by that much."""

    def __init__(self, program: Program, goal_kinds: frozenset[str], deadline: float,
                 on_proved: Callable[[], None] | None = None, nice: int = 0,
                 budget: ProofBudget = ProofBudget()) -> None:
        self.program = program
        self.deadline = deadline
        self.budget = budget
        self.on_proved = on_proved
        self._result: ProofResult | None = None
        self._thread: threading.Thread | None = None
        self._child: Forked | None = None
        # its own flag, not ``is_alive()``: a signal handler raising in ``join`` makes
        # Python mark a running thread stopped (see ``interrupt_until_done``)
        self._finished = threading.Event()
        self._stopped = False
        self._gc_was_enabled = False
        self._status = ""  # the child's, from its label
        self.runs_in = ""  # "process" | "thread" ("": in a thread, refused or failed to encode)
        self.t0 = time.perf_counter()
        self.goal_kinds = goal_kinds
        self.run: HornRun | None = None
        if can_fork():
            # The clauses are made in the child too: in this process their encoding
            # (0.14 s on a small recursive program) delayed the model checker's start
            self.runs_in = "process"
            self._child = Forked(self._attempt, lambda r: r.status.encode(), nice=nice)
            self._thread = threading.Thread(target=self._watch, name="tracelearn-chc", daemon=True)
        else:
            # (here, not on the thread: encoding builds terms in the main context, which the
            # thread must not touch beside the model checker)
            self.run, early = encode(program, goal_kinds, deadline)
            if early is not None:
                self._result = early
                return
            self.runs_in = "thread"
            # z3's reference counts are not thread-safe: a cyclic garbage collection on
            # one thread frees z3 terms that another thread's context is using (a rare
            # segmentation fault, seen once in six runs of tests/test_proofs.py). Only
            # reference counting runs while the proof does; collection resumes after.
            self._gc_was_enabled = gc.isenabled()
            gc.disable()
            self._thread = threading.Thread(target=self._work, name="tracelearn-chc", daemon=True)
        self._thread.start()

    def _resume_gc(self) -> None:
        if self._gc_was_enabled and self._thread is not None and self._finished.is_set():
            self._gc_was_enabled = False
            gc.enable()

    def _work(self) -> None:
        try:
            self._answer(self._attempt())
        finally:
            self._finished.set()

    def _watch(self) -> None:
        """Wait for the child's label, its status, and act on a proof at once. The
        result itself is unpickled by ``result``, on the caller's thread: here, its
        z3 terms (and a garbage collection the allocation may start) would touch z3
        beside the model checker's thread."""
        assert self._child is not None
        try:
            try:
                self._status = self._child.label().decode() or "unknown"
            except ChildLost:
                self._status = "stopped" if self._stopped else "unknown"
            if self._status == "proved":
                self._tell_proved()
        finally:
            self._finished.set()

    def _received(self) -> ProofResult:
        """The child's result (its label came), or what stands for it."""
        assert self._child is not None
        try:
            got = self._child.receive(5.0)
            if isinstance(got, ProofResult):
                return got
            why = "the proof process sent no result"
        except (ChildLost, TimeoutError) as e:
            why = f"the proof process: {e}"
        if self._stopped and self._status != "proved":
            return ProofResult("chc", "stopped", "another strategy answered first", time_s=self._elapsed())
        return ProofResult("chc", "unknown", why, time_s=self._elapsed())

    def _elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def _answer(self, res: ProofResult) -> None:
        self._result = res
        if res.proved:
            self._tell_proved()

    def _tell_proved(self) -> None:
        if self.on_proved is not None and not self._stopped:
            self.on_proved()

    def _attempt(self) -> ProofResult:
        if self.run is None:  # (in the child)
            self.run, early = encode(self.program, self.goal_kinds, self.deadline)
            if early is not None:
                return early
        try:
            rows, lemma_deadline = self._samples()
            ans = self.run.solve(self.deadline, rows, lemma_deadline, spacer_first_s=self.budget.spacer_first_s)
        except Exception as e:  # z3 failing inside (a limit of its own): no proof, said why
            ans = HornAnswer("unknown", f"the Horn solver failed: {e}")
        status = "stopped" if self._stopped and ans.status == "unknown" else ans.status
        return ProofResult("chc", status, ans.reason if status != "stopped" else "another strategy answered first",
                           ans.invariants, self._elapsed(), ans.clauses, ans.predicates,
                           ans.arithmetic, ans.solver, ans.lemmas, ans.lemma_queries)

    def _samples(self) -> tuple[dict[str, list[tuple]] | None, float | None]:
        """Facts of the summaries from concrete calls, for the lemma stage, and when that
        stage must end: a share of the time left (Spacer gets the rest)."""
        assert self.run is not None
        if self.run.arithmetic != "integer" or not any(
                p.kind == "sum" and p.proc != self.run.system.entry for p in self.run.system.predicates):
            return None, None
        now = time.perf_counter()
        left = self.deadline - now
        try:
            rows = sample_summaries(self.program, self.run.system, self.run.widths,
                                    now + min(self.budget.sample_s, 0.1 * left))
        except RecursionError:  # a library model the interpreter cannot run this way: no lemmas, Spacer alone
            return None, None
        if not rows:
            return None, None
        return rows, time.perf_counter() + min(self.budget.lemma_s, 0.4 * (self.deadline - time.perf_counter()))

    @property
    def proved(self) -> bool:
        r = self._result
        return (r is not None and r.proved) or self._status == "proved"

    def stop(self) -> None:
        """Stop the attempt (the model checker answered)."""
        if self._thread is None:
            return
        self._stopped = True
        if self._child is not None:
            if self._status != "proved":
                self._child.kill()  # the thread waiting for its label goes on at once
            self._finished.wait()
            self.result(wait=False)  # (a proof found is read; the child is reaped)
        else:
            assert self.run is not None
            interrupt_until_done(self._finished, self.run.interrupt)
        self._resume_gc()

    def result(self, wait: bool = True) -> ProofResult | None:
        if wait and self._thread is not None:
            while not self._finished.wait(0.05):
                pass
            self._resume_gc()
        if self._result is None and self._child is not None and self._finished.is_set():
            self._result = self._received()
            self._child.close()
        return self._result
