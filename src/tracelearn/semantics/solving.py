"""One way to ask z3: the remaining time budget on every call, and Ctrl-C honoured.

z3 catches SIGINT itself while it solves: the query ends as ``unknown`` (reason
"canceled", the same as a timeout) and the signal never reaches Python, so a
command went on, or reported a verdict. Here z3's own handler is switched off
(``ctrl_c=False``) and, in the main thread, the query runs on a helper thread
while the main thread waits: the Ctrl-C reaches Python there as
``KeyboardInterrupt``, z3 is interrupted, and the exception goes on up. In other
threads (symbolic execution runs on a big-stack thread) the query runs inline:
the main thread, waiting for that thread, takes the Ctrl-C. A query a resource limit
keeps short (``check_bounded``) runs inline in any thread, with z3's handler off: the
Ctrl-C is taken as it returns.
"""

from __future__ import annotations

import gc
import threading
import time
from dataclasses import dataclass

import z3

from ..bigstack import interrupt_until_done
from ..querytime import remaining_ms
from ..z3dag import holds


def interrupt_main_context() -> None:
    """Stop what z3's main context is solving (the model checker's query)."""
    z3.main_ctx().interrupt()


def clear_main_interrupt() -> None:
    """An interrupt that came after the main context's last query stays pending there
    ("push canceled" in the next z3 call of the process, another command's run in the
    API); a solver check resets it."""
    clear_interrupt(z3.main_ctx())


def clear_interrupt(ctx: z3.Context) -> None:
    """``clear_main_interrupt`` for any context."""
    z3.Solver(ctx=ctx).check()


def after_stop(e: BaseException) -> None:
    """Work on the main context ended with ``e``: when that is Ctrl-C or the time limit
    (not an error of the work), an interrupt sent as it ended may be pending: cleared."""
    if not isinstance(e, Exception):
        clear_main_interrupt()


def check_sat(solver: z3.Solver | z3.Optimize, assumptions: tuple | list = (),
              deadline: float | None = None) -> z3.CheckSatResult:
    """``solver.check(*assumptions)`` with at most the time left before ``deadline``.

    Raises ``KeyboardInterrupt`` when the user interrupts the query; whatever is raised
    while it runs, the query has ended first."""
    ms = remaining_ms(deadline)
    if ms is not None:
        solver.set(timeout=ms)
    try:
        solver.set(ctrl_c=False)
    except z3.Z3Exception:  # a solver kind without the parameter
        pass
    if threading.current_thread() is not threading.main_thread():
        return trusted(solver, solver.check(*assumptions), assumptions)
    box: dict = {}
    # The worker's own flag, not ``is_alive()`` (see ``interrupt_until_done``): the caller
    # once ran z3 beside a worker Python called stopped, a segmentation fault in 7 of 50
    # timed-out checks.
    started, finished = threading.Event(), threading.Event()

    def work() -> None:
        started.set()
        try:
            box["r"] = solver.check(*assumptions)
        except BaseException as e:  # handed to the caller's thread
            box["e"] = e
        finally:
            finished.set()

    # z3's reference counts are not thread-safe: a garbage collection in this thread
    # while the helper solves would free z3 terms of the same context under it (a rare
    # segmentation fault, most often once many solvers were made and dropped).
    collecting = gc.isenabled()
    worker = threading.Thread(target=work, name="tracelearn-z3", daemon=True)
    try:  # (the time limit raises at any line of ours: starting the worker is inside)
        gc.disable()
        worker.start()
        while not finished.wait(0.05):
            pass
    except BaseException as stop:
        # Ctrl-C, or the command's time limit: the query ends before the exception goes
        # on, or the caller's clean-up would run z3 beside it on the same context (a
        # worker not started after a while never will: starting the thread failed)
        give_up = time.monotonic() + 2.0
        interrupt_until_done(finished, solver.ctx.interrupt,
                             give_up=lambda: not started.is_set() and time.monotonic() > give_up)
        if finished.is_set() or not started.is_set():
            # An interrupt sent as the query was ending, or with no query at all (the stop
            # came before the worker started), stays pending on the context: the next run
            # in this process (the API, a benchmark's runs) failed at its first push
            # ("push canceled"), 29 PAC runs in a row after one time limit.
            clear_interrupt(solver.ctx)
        raise stop
    finally:
        if collecting:
            gc.enable()
    if "e" in box:
        raise box["e"]
    return trusted(solver, box["r"], assumptions)


def check_bounded(solver: z3.Solver, assumptions: tuple | list = (), deadline: float | None = None
                  ) -> z3.CheckSatResult:
    """``solver.check(*assumptions)`` in this thread, for a query a resource limit
    (``rlimit``) keeps short: a helper thread per query (``check_sat``) cost 0.4 ms of a
    0.75 ms query. z3's Ctrl-C handler is off, so an interrupt stops the work as the
    query returns. The assumptions are Boolean terms, passed without z3py's cast of each
    (30 microseconds: the integer reading's refuter assumes a literal per decision of a
    path, 360 of them on Primes, and the casts were 90% of its time)."""
    ms = remaining_ms(deadline)
    if ms is not None:
        solver.set(timeout=ms)
    solver.set(ctrl_c=False)
    arr = (z3.Ast * len(assumptions))()
    for i, a in enumerate(assumptions):
        arr[i] = a.as_ast()
    r = z3.CheckSatResult(z3.Z3_solver_check_assumptions(solver.ctx.ref(), solver.solver, len(assumptions), arr))
    return trusted(solver, r, assumptions)


def trusted(solver: z3.Solver | z3.Optimize, r: z3.CheckSatResult, assumptions: tuple | list
            ) -> z3.CheckSatResult:
    """``r``, or ``unknown`` for a ``sat`` whose model is not one: z3 5.4 answered
    ``sat`` after its time limit had ended the check ("timeout"), with a model that broke
    the assertions (4 of 768 such answers on a pruning solver with floats stored as bits,
    a time limit of a few milliseconds). A ``sat`` given as the limit came is checked."""
    if r != z3.sat or not isinstance(solver, z3.Solver):
        return r
    why = solver.reason_unknown()
    if "timeout" not in why and "cancel" not in why and "resource" not in why:
        return r
    try:
        if holds(solver.model(), list(solver.assertions()) + [a for a in assumptions if z3.is_bool(a)]):
            return r
    except z3.Z3Exception:  # (no model at all)
        pass
    return z3.unknown


# After k questions in a row z3's incremental core did not answer in its share, the next
# 2^k - 1 (at most this many) skip it: on a heap program it answered 3 of 85 learning
# queries and cost 9.4 s of 37.
MAX_QUICK_SKIP = 15


@dataclass
class QuickShare:
    """How long the next question may take on z3's incremental core before the other
    solvers are asked: ``base`` after it answered, ``after`` once it did not, never longer
    than the other solvers have been taking (their running mean), and not at all for a
    while after it failed to answer in time."""

    base: float
    after: float
    share: float = -1.0  # (``base`` to begin with)
    misses: int = 0  # questions in a row it did not answer
    skip: int = 0  # questions still to go without it
    other_s: float | None = None  # the other solvers' mean time to answer

    def __post_init__(self) -> None:
        if self.share < 0:
            self.share = self.base

    def ask(self, solver: z3.Solver, assumptions: list, deadline: float | None
            ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, bool]:
        """``check_quick`` for the next question's share, noting whether it answered;
        not final (and no check) while it is skipped."""
        share = self.next()
        if share <= 0:
            return z3.unknown, None, False
        r, model, final = check_quick(solver, assumptions, deadline, share)
        if not final:
            self.missed()
        elif r != z3.unknown:
            self.answered()
        return r, model, final

    def next(self) -> float:
        """The next question's share (0: ask the other solvers at once)."""
        if self.skip > 0:
            self.skip -= 1
            return 0.0
        return self.share if self.other_s is None else min(self.share, self.other_s)

    def answered(self) -> None:
        self.share, self.misses = self.base, 0

    def missed(self) -> None:
        self.misses += 1
        self.share = self.after
        self.skip = min(2 ** self.misses - 1, MAX_QUICK_SKIP)

    def elsewhere(self, seconds: float) -> None:
        """Another solver answered in ``seconds``."""
        self.other_s = seconds if self.other_s is None else 0.7 * self.other_s + 0.3 * seconds


def check_quick(solver: z3.Solver, assumptions: list, deadline: float | None, quick_s: float
                ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, bool]:
    """``check_sat`` on the incremental ``solver`` for at most ``quick_s``: the answer, its
    model (sat), and whether that is final (answered, or stopped from outside: a proof
    found, the time limit, where another solver would only be stopped too)."""
    quick = time.perf_counter() + quick_s
    r = check_sat(solver, assumptions, quick if deadline is None else min(quick, deadline))
    if r == z3.sat:
        return r, solver.model(), True
    now = time.perf_counter()
    final = r == z3.unsat or now < quick - 0.05 or (deadline is not None and now >= deadline)
    return r, None, final


def check_fresh(assertions: z3.AstVector | list, assumptions: list, deadline: float | None,
                timeout_ms: int | None = None) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str]:
    """``check_sat`` on a fresh solver holding ``assertions`` and the assumptions asserted:
    the answer, its model (sat), why it is unknown (else ""). ``timeout_ms``: the limit
    when there is no ``deadline``."""
    fresh = z3.Solver()
    if timeout_ms is not None:
        fresh.set("timeout", timeout_ms)
    fresh.add(assertions)
    fresh.add(*assumptions)
    r = check_sat(fresh, [], deadline)
    return r, (fresh.model() if r == z3.sat else None), (fresh.reason_unknown() if r == z3.unknown else "")
