"""Time limits of solver queries, shared by every layer that asks z3 under a deadline
(a ``time.perf_counter()`` value, or None for none)."""

from __future__ import annotations

import time


def remaining_ms(deadline: float | None) -> int | None:
    """Milliseconds left before ``deadline``, at least 1."""
    if deadline is None:
        return None
    return max(1, int((deadline - time.perf_counter()) * 1000))


def at_deadline(deadline: float | None) -> bool:
    """Has ``deadline`` come (within 50 ms: a solver's time limit, in whole milliseconds,
    ends a query a little before it)? What names an undecided query's cause "time limit"
    (z3 says "canceled" or "timeout" either way)."""
    return deadline is not None and time.perf_counter() >= deadline - 0.05
