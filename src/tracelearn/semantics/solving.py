"""One way to ask z3: the remaining time budget on every call, and Ctrl-C honoured.

z3 installs its own SIGINT handler while it solves: a Ctrl-C cancels the query,
which then returns ``unknown`` and the signal never reaches Python. Every solver
call in tracelearn goes through :func:`check_sat`, which turns that cancellation
back into ``KeyboardInterrupt`` so the command stops promptly instead of
reporting a verdict.
"""

from __future__ import annotations

import time

import z3

_INTERRUPTED = ("interrupted from keyboard", "interrupted")


def remaining_ms(deadline: float | None) -> int | None:
    """Milliseconds left before ``deadline`` (a ``time.perf_counter()`` value), at least 1."""
    if deadline is None:
        return None
    return max(1, int((deadline - time.perf_counter()) * 1000))


def check_sat(solver: z3.Solver | z3.Optimize, assumptions: tuple | list = (),
              deadline: float | None = None) -> z3.CheckSatResult:
    """``solver.check(*assumptions)`` with at most the time left before ``deadline``.

    Raises ``KeyboardInterrupt`` when the user interrupted the query."""
    ms = remaining_ms(deadline)
    if ms is not None:
        solver.set(timeout=ms)
    r = solver.check(*assumptions)
    if r == z3.unknown and solver.reason_unknown() in _INTERRUPTED:
        raise KeyboardInterrupt
    return r
