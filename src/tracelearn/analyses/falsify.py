"""`check`'s falsifier: the concolic bug search (``bug_search.py``) in a process of its
own (``forked.py``), beside the model checker. A bug the model checker finds only at a
deep unwinding (a recursion of a hundred levels and a sum that wraps) a search that
follows runs finds in a few batches.

What the process sends back is a finished counterexample: a run failed a selected
check, the symbolic path of its decision vector fails the same check, and the solver's
inputs fail it in the interpreter on the program as loaded, with the undefined-behaviour
checks on (a run through a signed overflow assumed absent is no bug: it stops there).

A process, not a thread: the search and the model checker's unwinding are both Python
code, and under one interpreter lock each would run at half speed. It is forked before
the check starts any thread; ``watch=False`` delays the thread that waits for its
answer until the check's other children are forked."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass

from ..forked import ChildLost, Forked
from ..ir.decisions import DecisionAlphabet, assertions_as_branches
from ..ir.program import Program
from ..ir.transform import copy_program
from ..semantics.strategies.path import PathExplorer
from ..semantics.traces import Counterexample
from .bug_search import DECIDED_KINDS, SEARCH_DECISIONS, Undecided, bug_searcher, error_along, explorer_factory

BATCH = 10  # runs per restart of the search (PAC's k)
WITNESS_DECISIONS = 100_000  # how far a failing run's path is followed


@dataclass
class SearchStats:
    """What the search did (the child's figures, sent with its answer)."""

    status: str = "running"  # "found" | "none" (its time ran out) | "failed" | "stopped" (the check ended first)
    batches: int = 0
    runs: int = 0  # interpreter runs (samples whose run was made before are not counted)
    samples: int = 0
    solver_calls: int = 0
    time_s: float = 0.0
    reason: str = ""

    def to_json(self) -> dict:
        return {"status": self.status, "batches": self.batches, "runs": self.runs, "samples": self.samples,
                "solver_calls": self.solver_calls, "time_s": round(self.time_s, 4), "reason": self.reason or None}


class Falsifier:
    """The bug search of ``program`` in a forked process until ``deadline``.
    ``on_found`` is called (on a thread of the caller's process) when it sends a
    counterexample, e.g. to stop the model checker. ``nice_after`` (s, n): after s
    seconds, the search's priority is lowered by n (a head start over what runs beside).
    """

    def __init__(self, program: Program, checks: frozenset[str], off: frozenset[str], deadline: float,
                 on_found: Callable[[], None] | None = None, seed: int = 0, watch: bool = True,
                 nice_after: tuple[float, int] | None = None) -> None:
        self.found: Counterexample | None = None
        self.stats = SearchStats()
        self.on_found = on_found
        self._finished = threading.Event()
        # The answer is taken, or the search marked stopped, under this lock: a ``stop``
        # called while the answer's ``on_found`` still ran marked a found bug "stopped"
        self._lock = threading.Lock()
        self._answered = False
        self._t0 = time.perf_counter()
        self._child = Forked(lambda: _search(program, checks, off, deadline, seed, nice_after))
        self._thread = threading.Thread(target=self._wait, name="tracelearn-falsify", daemon=True)
        if watch:
            self.watch()

    def watch(self) -> None:
        """Start waiting for the child's answer (on a thread: fork nothing after this)."""
        if not self._thread.is_alive() and not self._finished.is_set():
            self._thread.start()

    @staticmethod
    def available() -> bool:
        """Can the search run here (a system with fork)?"""
        return hasattr(os, "fork")

    def _wait(self) -> None:
        found: Counterexample | None = None
        stats: SearchStats | None = None
        try:
            found, stats = self._child.receive()  # type: ignore[misc]
        except ChildLost as e:  # stopped (its figures were not sent), died (out of memory), or unreadable
            if e.answered:
                stats = SearchStats("failed", reason=f"the search failed: {e}")
        with self._lock:
            if stats is None:
                stats = (SearchStats("stopped", reason="stopped before it found a bug")
                         if self.stats.status == "stopped" else
                         SearchStats("failed", reason="the search process ended without an answer"))
            stats.time_s = stats.time_s or time.perf_counter() - self._t0
            self.stats = stats
            self.found = found
            self._answered = True
        try:
            if found is not None and self.on_found is not None:
                self.on_found()
        finally:  # after the interrupt: ``stop`` returns only once none can come any more
            self._finished.set()

    @property
    def has_found(self) -> bool:
        return self.found is not None

    def stop(self) -> SearchStats:
        """End the search (the portfolio answered, or the time is up); its figures."""
        with self._lock:
            if not self._answered:
                self.stats.status = "stopped"
                self.stats.time_s = time.perf_counter() - self._t0
        self._child.kill()
        if self._thread.is_alive():
            self._finished.wait(5.0)  # the reader sees the pipe close
        self._child.close()
        return self.stats


def _counterexample(tester: PathExplorer | None, witness: PathExplorer, prog: Program, program: Program,
                    vector: tuple[bool, ...], checks: frozenset[str], run_checks: frozenset[str],
                    stats: SearchStats) -> Counterexample | None:
    """The failing run's counterexample along ``vector``: on the tester's explorer
    first, whose trie holds the flip that made the run (its path is not executed again:
    on a recursion a hundred levels deep that took a third of the search), then on the
    witness explorer, which follows paths of any length with no solver budget."""
    reason = ""
    for ex in (tester, witness):
        if ex is None or (ex is tester and len(vector) > ex.opt.max_decisions):
            continue
        try:
            found = error_along(ex, prog, vector, checks, replay_on=program, replay_checks=run_checks)
        except Undecided as u:
            reason = str(u)
            continue
        if found is not None:
            return found
    stats.reason = reason or stats.reason
    return None


def _search(program: Program, checks: frozenset[str], off: frozenset[str], deadline: float,
            seed: int, nice_after: tuple[float, int] | None) -> tuple[Counterexample | None, SearchStats]:
    """The child's work: batches of the bug search until a run fails a check of
    ``checks`` whose witness replays, or ``deadline``; (counterexample or None, stats)."""
    t0 = time.perf_counter()
    stats = SearchStats()
    found: Counterexample | None = None
    run_checks = checks | off
    search = None
    try:
        kinds = checks & DECIDED_KINDS
        prog = assertions_as_branches(copy_program(program), kinds)
        explorer = explorer_factory(prog, deadline)
        search = bug_searcher(prog, DecisionAlphabet.of(prog), explorer, kinds, SEARCH_DECISIONS, BATCH, seed,
                              checks=run_checks)
        # A failing run made the vector: its path is feasible, so it is followed with one
        # query at its end (path and failure), not one per decision
        witness = explorer(WITNESS_DECISIONS, eager=False)
        index = 0
        while found is None and time.perf_counter() < deadline:
            if nice_after is not None and time.perf_counter() > t0 + nice_after[0]:
                os.nice(nice_after[1])
                nice_after = None
            with closing(search.batch_runs(index)) as runs:
                for s in runs:
                    v = s.run.violation
                    if s.run.status != "violation" or v is None or v.kind not in checks:
                        continue  # (a failure of a switched-off check ends that run: no bug)
                    found = _counterexample(search.tester, witness, prog, program, s.vector, checks, run_checks,
                                            stats)
                    if found is not None:
                        break
            index += 1
        stats.status = "found" if found is not None else "none"
    except Exception as e:  # the search stops; the model checker's verdict stands alone
        stats.status, stats.reason = "failed", f"{type(e).__name__}: {e}"
    finally:
        if search is not None:
            st = search.stats
            stats.batches, stats.runs, stats.samples, stats.solver_calls = st.batches, st.runs, st.samples, st.solver_calls
        stats.time_s = time.perf_counter() - t0
    return found, stats
