"""One-off bit-vector queries answered by Bitwuzla, z3 where Bitwuzla cannot.

The model checker's verdict query is one large formula asked once. Of the 34 such
queries of the SV-COMP'15 recursive programs that took z3 over 0.2 s, Bitwuzla answered
in 55 s what took z3 119 s, and decided two that z3 left open (at 26 and 30 s); it was
slower on 5. A recursion 128 calls deep: 0.29 s against 2.0 s. The formula goes over as SMT-LIB text, which z3 prints and
Bitwuzla parses, both in C++ (a term-by-term translation in Python cost more than the
query); the answer comes back as a z3 model, which the rest of the engine evaluates.
Bitwuzla runs in a process of its own (``bitwuzla_worker``), started at the first query
and kept for the next: its binding holds the interpreter while it solves, which stopped
the proof thread beside the model checker.

Nothing here decides a verdict alone: a formula Bitwuzla cannot read (z3's own
operators, a single-argument ``or``), a model that does not satisfy the formula in z3
(checked on every sat), or Bitwuzla missing, gives ``None`` and the caller asks z3.
"""

from __future__ import annotations

import importlib.util
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable

import z3

from ..z3dag import constants, holds, scalar_model, smtlib
from .bitwuzla_worker import read_message, write_message
from .solving import at_deadline, check_fresh, remaining_ms

# z3's "interpreted" division operators print as bvsdiv_i etc. They are the SMT-LIB
# operators (z3 proves bvsdiv_i x y = bvsdiv x y for every x, y, division by zero
# included: tests/test_bitwuzla_backend.py), so they are renamed.
_Z3_OPS = re.compile(r"\b(bvsdiv|bvudiv|bvsrem|bvurem|bvsmod)_i\b")
POLL_S = 0.05  # how often a query's wait looks at stop() (Ctrl-C lands at once)
GRACE_S = 0.5  # past the deadline, the process's own time limit should have answered


def available() -> bool:
    return importlib.util.find_spec("bitwuzla") is not None


@dataclass
class BitwuzlaWorker:
    """The Bitwuzla process of one analysis (``with``: it ends with the block)."""

    _proc: subprocess.Popen | None = None
    broken: str = ""  # why it is used no more (the process failed to start or died)
    started: int = 0  # processes started (a stopped query ends its process)

    def __enter__(self) -> "BitwuzlaWorker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        self.broken = "closed"  # (an encoding kept in a result asks z3 from now on)

    def close(self) -> None:
        if self._proc is not None:
            proc, self._proc = self._proc, None
            proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:  # a query's bytes left in the buffer of a pipe now closed
                        pass

    def _process(self) -> subprocess.Popen | None:
        if self._proc is None and not self.broken:
            if not available():
                self.broken = "bitwuzla is not installed"
                return None
            try:
                self._proc = subprocess.Popen([sys.executable, "-m", "tracelearn.semantics.bitwuzla_worker"],
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL)  # a crash: z3 answers, no traceback
                self.started += 1
            except OSError as e:
                self.broken = f"could not start Bitwuzla: {e}"
        return self._proc

    def ask(self, text: str, deadline: float | None, stop: Callable[[], bool] | None) -> dict | None:
        """The worker's answer to ``text``; ``None`` when it is not there (or died), an
        ``unknown`` "canceled" answer when ``stop()`` or the deadline ended the wait."""
        proc = self._process()
        if proc is None:
            return None
        assert proc.stdin is not None and proc.stdout is not None
        try:
            write_message(proc.stdin, {"smt": text, "ms": remaining_ms(deadline)})
            while not select.select([proc.stdout], [], [], POLL_S)[0]:
                late = deadline is not None and time.perf_counter() > deadline + GRACE_S
                if late or (stop is not None and stop()):
                    self.close()  # the next query starts a new process
                    return {"result": "unknown", "why": "canceled"}
            answer = read_message(proc.stdout)
        except BrokenPipeError:
            answer = None
        except BaseException:  # Ctrl-C, the command's time limit: the query dies with it
            self.close()
            raise
        if answer is None:
            self.close()
            self.broken = "the Bitwuzla process ended"
        return answer


def check_bitwuzla(worker: BitwuzlaWorker, assertions: list[z3.BoolRef], deadline: float | None,
                   stop: Callable[[], bool] | None = None
                   ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str] | None:
    """The answer to ``assertions`` (sat with a z3 model of them, unsat, or unknown with
    the reason), or ``None`` when Bitwuzla cannot take the formula."""
    if not assertions or worker.broken:
        return None
    answer = worker.ask(_Z3_OPS.sub(r"\1", smtlib(assertions)), deadline, stop)
    if answer is None or answer["result"] == "error":
        return None  # z3's own operators, sorts or syntax: z3 answers
    if answer["result"] == "unsat":
        return z3.unsat, None, ""
    if answer["result"] != "sat":
        return z3.unknown, None, "canceled" if at_deadline(deadline) else answer.get("why", "")
    model = _model(assertions, answer, deadline)
    return None if model is None else (z3.sat, model, "")


def _model(assertions: list[z3.BoolRef], answer: dict, deadline: float | None) -> z3.ModelRef | None:
    """A z3 model of ``assertions`` from Bitwuzla's values of the Boolean and bit-vector
    constants; an array, float or function in the formula is left to z3, with those
    values fixed. ``None`` when the values do not satisfy the formula in z3 (the two
    solvers read the text differently: the caller asks z3 instead)."""
    model = scalar_model(assertions[0].ctx, [tuple(v) for v in answer["values"]])
    if not answer["scalar_only"]:
        fixed = [c == model.eval(c) for c in constants(assertions) if z3.is_bool(c) or z3.is_bv(c)]
        r, full, _ = check_fresh(assertions, fixed, deadline)
        return full if r == z3.sat else None
    return model if holds(model, assertions) else None
