"""`check`'s falsifier: the concolic bug search (``bug_search.py``) in a process of its
own, beside the model checker. A bug the model checker finds only at a deep unwinding
(a recursion of a hundred levels and a sum that wraps) a search that follows runs finds
in a few batches.

What the process sends back is a finished counterexample: a run failed a selected
check, the symbolic path of its decision vector fails the same check, and the solver's
inputs fail it in the interpreter on the program as loaded, with the undefined-behaviour
checks on (a run through a signed overflow assumed absent is no bug: it stops there).

A process, not a thread: the search and the model checker's unwinding are both Python
code, and under one interpreter lock each would run at half speed. It is forked before
the check starts any thread (the child then holds no lock another thread took)."""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pipe
from multiprocessing.connection import Connection

from ..ir.decisions import DecisionAlphabet, assertions_as_branches
from ..ir.program import Program
from ..ir.transform import copy_program
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
    counterexample, e.g. to stop the model checker."""

    def __init__(self, program: Program, checks: frozenset[str], off: frozenset[str], deadline: float,
                 on_found: Callable[[], None] | None = None, seed: int = 0) -> None:
        self.found: Counterexample | None = None
        self.stats = SearchStats()
        self.on_found = on_found
        self._finished = threading.Event()
        # The answer is taken, or the search marked stopped, under this lock: a ``stop``
        # called while the answer's ``on_found`` still ran marked a found bug "stopped"
        self._lock = threading.Lock()
        self._answered = False
        self._t0 = time.perf_counter()
        reader, writer = Pipe(duplex=False)
        for stream in (sys.stdout, sys.stderr):  # else the child's exit could write them again
            stream.flush()
        # The parent's objects are never collected in the child (a finalizer there could
        # act for the parent: close a stream, remove a file); the parent collects them again
        gc.freeze()
        pid = os.fork()
        if pid == 0:  # the child: search, send, and leave without running the parent's clean-up
            code = 1
            try:
                reader.close()
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                _search(writer, program, checks, off, deadline, seed)
                code = 0
            finally:
                os._exit(code)
        gc.unfreeze()
        writer.close()
        self.pid: int | None = pid
        self._reader = reader
        self._thread = threading.Thread(target=self._wait, name="tracelearn-falsify", daemon=True)
        self._thread.start()

    @staticmethod
    def available() -> bool:
        """Can the search run here (a system with fork)?"""
        return hasattr(os, "fork")

    def _wait(self) -> None:
        try:
            found, stats = self._reader.recv()
        except (EOFError, OSError):  # stopped (its figures were not sent), or it died (out of memory)
            found, stats = None, None
        except Exception as e:  # an answer that would not unpickle: none
            found, stats = None, SearchStats("failed", reason=f"the search's answer could not be read: {e}")
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
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = None
        self._finished.wait(5.0)  # the reader sees the pipe close
        self._reader.close()
        return self.stats


def _search(out: Connection, program: Program, checks: frozenset[str], off: frozenset[str], deadline: float,
            seed: int) -> None:
    """The child's work: batches of the bug search until a run fails a check of
    ``checks`` whose witness replays, or ``deadline``; sends (counterexample or None,
    stats)."""
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
            for s in search.batch(index):
                v = s.run.violation
                if s.run.status != "violation" or v is None or v.kind not in checks:
                    continue  # (a failure of a switched-off check ends that run: no bug)
                try:
                    found = error_along(witness, prog, s.vector, checks, replay_on=program, replay_checks=run_checks)
                except Undecided as u:
                    stats.reason = str(u)
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
    out.send((found, stats))
    out.close()
