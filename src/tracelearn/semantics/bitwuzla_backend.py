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
from dataclasses import dataclass, field
from typing import Callable

import z3

from ..z3dag import all_of, applications, constants, holds, scalar_model, smtlib, substitute
from .bitwuzla_worker import read_message, write_message
from ..querytime import at_deadline, remaining_ms
from .solving import check_fresh

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
    sessions: int = 0  # session ids given out

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

    def new_session(self) -> int:
        """An id for a session (``BitwuzlaSession``) no other has had."""
        self.sessions += 1
        return self.sessions

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

    def ask(self, text: str, deadline: float | None, stop: Callable[[], bool] | None, **fields: object
            ) -> dict | None:
        """The worker's answer to ``text``; ``None`` when it is not there (or died), an
        ``unknown`` "canceled" answer when ``stop()`` or the deadline ended the wait."""
        proc = self._process()
        if proc is None:
            return None
        assert proc.stdin is not None and proc.stdout is not None
        try:
            write_message(proc.stdin, {"smt": text, "ms": remaining_ms(deadline), **fields})
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
                   stop: Callable[[], bool] | None = None, portable: Portable | None = None, kept: int = 0,
                   complete: bool = True) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str] | None:
    """The answer to ``assertions`` (sat with a z3 model of them, unsat, or unknown with
    the reason), or ``None`` when Bitwuzla cannot take the formula. ``portable``: the
    caller's translation of its formulas (the first ``kept`` of ``assertions`` are those
    of its last query and more: translated once). ``complete`` false: a caller that can
    do without a model gets sat with none where Bitwuzla's values are not a z3 model
    alone (z3 completing it took 0.3-0.6 s on a heap program's equation)."""
    if not assertions or worker.broken:
        return None
    portable = portable if portable is not None else Portable()
    text = smtlib(assertions)
    ported = "fp.to_ieee_bv" in text
    if ported:
        text = smtlib(portable(assertions, kept))
    answer = worker.ask(_Z3_OPS.sub(r"\1", text), deadline, stop)
    if answer is not None and answer["result"] == "error" and not ported:
        # (a walk of the whole formula, only when Bitwuzla could not read it)
        other = portable(assertions, kept)
        if len(other) != len(assertions) or any(not x.eq(y) for x, y in zip(other, assertions)):
            answer = worker.ask(_Z3_OPS.sub(r"\1", smtlib(other)), deadline, stop)
    if answer is None or answer["result"] == "error":
        return None  # z3's own operators, sorts or syntax: z3 answers
    if answer["result"] == "unsat":
        return z3.unsat, None, ""
    if answer["result"] != "sat":
        return z3.unknown, None, "canceled" if at_deadline(deadline) else answer.get("why", "")
    model = _model(assertions, answer, deadline, complete)
    return None if model is None and complete else (z3.sat, model, "")


def settled(out: tuple[z3.CheckSatResult, z3.ModelRef | None, str] | None) -> bool:
    """Does Bitwuzla's answer ``out`` end the query: an answer, or a stop from outside (the
    time limit, the portfolio), where z3 would only be stopped too? A give-up does not."""
    return out is not None and (out[0] != z3.unknown or out[2] == "canceled")


@dataclass
class Portable:
    """Formulas without two things of z3's that Bitwuzla does not read, satisfiable
    exactly when they are up to the bits of a NaN:

    - ``fp.to_ieee_bv x`` (a float's bits, where a program stores a float in memory it
      reads as bytes), which is not SMT-LIB: a fresh constant ``b`` with ``to_fp b = x``.
      That is the same bits for any other value; for a NaN, z3 leaves the bits
      unspecified and ``b`` is any NaN's. So an unsat here is unsat in z3 (a NaN's bits
      that are not a NaN's aside), and a sat answer's model is checked in z3 anyway;
    - ``or`` of one argument: the argument.

    One object translates the growing formula of one encoding: what it walked and
    translated before is not walked again (on a 7,600-constraint equation the walk took
    0.4 s a query)."""

    _seen: set[int] = field(default_factory=set)  # AST ids walked, in kept formulas
    _pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = field(default_factory=list)  # term -> replacement
    _defs: list[z3.BoolRef] = field(default_factory=list)  # the fresh constants' definitions
    _kept: list[z3.BoolRef] = field(default_factory=list)  # the kept formulas, translated
    _last: z3.BoolRef | None = None  # the last kept formula, as given
    _made: int = 0  # fresh constants made

    def __call__(self, assertions: list[z3.BoolRef], kept: int = 0) -> list[z3.BoolRef]:
        """``assertions`` translated; the first ``kept`` begin with those of the last call."""
        done = len(self._kept)
        if kept < done or (done and not assertions[done - 1].eq(self._last)):
            self.__init__()  # (not an extension of the last formula: afresh)
            done = 0
        if kept:
            self._last = assertions[kept - 1]
        for t in applications(assertions[done:kept], _KINDS, self._seen):
            self._add(t)
        self._kept += [substitute(a, self._pairs) for a in assertions[done:kept]]
        # the rest is this query's own: its translation is not kept
        n_pairs, n_defs = len(self._pairs), len(self._defs)
        known = {a.get_id() for a, _ in self._pairs}
        for t in applications(assertions[kept:], _KINDS):
            if t.get_id() not in known:
                self._add(t)
        out = self._kept + [substitute(a, self._pairs) for a in assertions[kept:]] + self._defs
        del self._pairs[n_pairs:]
        del self._defs[n_defs:]
        return out

    @property
    def kept_defs(self) -> int:
        """Definitions of fresh constants made for the kept formulas (the first of the
        output's definitions)."""
        return len(self._defs)

    def _add(self, t: z3.ExprRef) -> None:
        if t.decl().kind() == z3.Z3_OP_OR:
            if t.num_args() == 1:
                self._pairs.append((t, t.arg(0)))
            return
        x = t.arg(0)
        self._made += 1  # (a name never used twice: a session keeps every one)
        bits = z3.BitVec(f"tl!ieee!{self._made}", x.sort().ebits() + x.sort().sbits(), t.ctx)
        self._pairs.append((t, bits))
        self._defs.append(z3.fpToFP(bits, x.sort()) == x)


_KINDS = frozenset({z3.Z3_OP_FPA_TO_IEEE_BV, z3.Z3_OP_OR})
_DECLARATION = re.compile(r"^\(declare-fun (\|[^|]*\||[^\s()]+) ", re.M)


@dataclass
class BitwuzlaSession:
    """Queries under assumptions on a formula that only grows (an encoding's solver):
    Bitwuzla keeps the formula, its clauses and what it learned from one query to the
    next, and each query sends what is new. On a program of heap lists and floats the
    formula was 16 MB of SMT-LIB: sent whole, each query took 2-4 s; kept, 0.01-0.9 s
    after the first.

    A query's own constraints are asserted behind a fresh literal that only that query
    assumes. A new Bitwuzla process (the last one was stopped) starts the session again."""

    worker: BitwuzlaWorker
    usable: bool = True
    _id: int = 0
    _process: int = -1  # ``worker.started`` when the session last spoke to it
    _sent: int = 0  # kept formulas sent
    _defs_sent: int = 0
    _last: z3.BoolRef | None = None  # the last kept formula sent, as given
    _declared: set[str] = field(default_factory=set)
    _portable: Portable = field(default_factory=Portable)
    _acts: int = 0

    def check(self, kept: list[z3.BoolRef], extra: list[z3.BoolRef], assumptions: list[z3.BoolRef],
              deadline: float | None, stop: Callable[[], bool] | None = None
              ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str] | None:
        """``kept and extra`` under ``assumptions``: the answer (sat with a z3 model of them
        all), or None where Bitwuzla has none (then the session is usable no longer, but
        for a stopped query)."""
        worker = self.worker
        if not self.usable or worker.broken:
            return None
        fresh = (self._process != worker.started or worker._proc is None
                 or (self._sent and (len(kept) < self._sent or not kept[self._sent - 1].eq(self._last))))
        if fresh:
            self._id, self._sent, self._defs_sent, self._acts = worker.new_session(), 0, 0, 0
            self._declared, self._portable, self._last = set(), Portable(), None
        own = list(assumptions) + list(extra)
        names = []
        if own:
            self._acts += 1
            act = z3.Bool(f"tl!act!{self._id}!{self._acts}", own[0].ctx)
            names.append(act.decl().name())
            own = [z3.Implies(act, all_of(own))]
        out = self._portable(kept + own, len(kept))
        defs = out[len(kept) + len(own):]  # the fresh constants' definitions: the kept ones, then own's
        new = out[self._sent:len(kept)] + defs[self._defs_sent:] + out[len(kept):len(kept) + len(own)]
        answer = worker.ask(self._text(new), deadline, stop, session=self._id, new=fresh, assume=names)
        self._process = worker.started
        if answer is None or answer["result"] == "error":
            self.usable = False
            return None
        self._sent, self._defs_sent = len(kept), self._portable.kept_defs
        self._last = kept[-1] if kept else None
        if answer["result"] == "unsat":
            return z3.unsat, None, ""
        if answer["result"] != "sat":
            return z3.unknown, None, "canceled" if at_deadline(deadline) else answer.get("why", "")
        model = _model(kept + list(extra) + list(assumptions), answer, deadline)
        return None if model is None else (z3.sat, model, "")

    def _text(self, formulas: list[z3.BoolRef]) -> str:
        """``formulas`` as SMT-LIB, without declaring again what the session has."""
        if not formulas:
            return ""
        lines = []
        for line in _Z3_OPS.sub(r"\1", smtlib(formulas)).split("\n"):
            m = _DECLARATION.match(line)
            if m is not None:
                if m.group(1) in self._declared:
                    continue
                self._declared.add(m.group(1))
            lines.append(line)
        return "\n".join(lines)

    def close(self) -> None:
        if self._id and self._process == self.worker.started and self.worker._proc is not None:
            self.worker.ask("", None, None, session=self._id, close=True)
        self.usable = False


def _model(assertions: list[z3.BoolRef], answer: dict, deadline: float | None, complete: bool = True
           ) -> z3.ModelRef | None:
    """A z3 model of ``assertions`` from Bitwuzla's values of the Boolean, bit-vector and
    float constants. Where those do not make a model alone (an array or function in the
    formula, or the bits of a NaN, which z3 keeps in a function of its own), z3 finds the
    rest with those values fixed (unless not ``complete``). ``None`` when the values do not
    satisfy the formula in z3 (the two solvers read the text differently: the caller asks
    z3 instead)."""
    if not complete and not answer["scalar_only"]:
        return None
    model = scalar_model(assertions[0].ctx, [tuple(v) for v in answer["values"]])
    if answer["scalar_only"] and holds(model, assertions):
        return model
    if not complete:
        return None
    fixed = [c == model.eval(c) for c in constants(assertions)
             if (z3.is_bool(c) or z3.is_bv(c) or z3.is_fp(c)) and model.get_interp(c.decl()) is not None]
    r, full, _ = check_fresh(assertions, fixed, deadline)
    return full if r == z3.sat else None
