"""Run deeply recursive work (parsing nested expressions, symbolic execution of
recursion) on a thread with a large stack, so Python's recursion limit is not
the bound; and stop work running on another thread before the caller goes on."""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from typing import Callable, TypeVar

T = TypeVar("T")
STACK_BYTES = 1 << 29
RECURSION_LIMIT = 200_000


STOP_WAIT_S = 10.0  # how long a Ctrl-C waits for the work to unwind


def run_with_big_stack(fn: Callable[[], T], interrupt: Callable[[], None] | None = None) -> T:
    """``fn()`` on a big-stack thread. On Ctrl-C (or the time limit) the work is stopped
    before the exception goes on up: the caller's clean-up must not run beside it
    (z3's reference counts are not thread-safe: a z3 call or a freed term of the same
    context on two threads at once is a segmentation fault). ``interrupt`` stops what
    the work may be waiting on outside Python (a z3 query)."""
    result: list = []
    error: list[BaseException] = []
    # its own flag, not ``is_alive()``: a signal handler raising in ``join`` makes Python
    # mark a thread stopped that still runs (see ``interrupt_until_done``)
    finished = threading.Event()

    def target() -> None:
        try:
            result.append(fn())
        except BaseException as e:  # re-raised in the caller's thread
            error.append(e)
        finally:
            finished.set()

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        # daemon: a command stopped by its time limit or Ctrl-C exits without waiting
        t = threading.Thread(target=target, name="tracelearn-deep", daemon=True)
        t.start()
        try:
            while not finished.wait(0.2):
                pass
        except BaseException as stop:  # Ctrl-C, or the command's time limit
            _stop(t, finished, interrupt)
            raise stop
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return result[0]


def _stop(t: threading.Thread, finished: threading.Event, interrupt: Callable[[], None] | None) -> None:
    """Raise ``KeyboardInterrupt`` inside ``t`` (again and again: Python code can catch
    it, and a z3 call only sees it when it returns) and wait for ``t`` to end."""
    def stop_once() -> None:
        if t.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(t.ident), ctypes.py_object(KeyboardInterrupt))
        if interrupt is not None:
            interrupt()

    end = time.monotonic() + STOP_WAIT_S
    interrupt_until_done(finished, stop_once, 0.2, lambda: time.monotonic() >= end)


def interrupt_until_done(finished: threading.Event, interrupt: Callable[[], None], every_s: float = 0.05,
                         give_up: Callable[[], bool] | None = None) -> None:
    """Call ``interrupt`` until the work on another thread sets ``finished`` (again and
    again: an interrupt before the work reaches z3 is lost), whatever is raised here
    meanwhile (a second Ctrl-C); return early once ``give_up()`` is true. The work's own
    flag, never ``Thread.is_alive()``: a signal handler raising inside ``join`` makes
    Python mark a thread stopped that still runs (bpo-45274)."""
    while not finished.is_set():
        if give_up is not None and give_up():
            return
        try:
            interrupt()
            finished.wait(every_s)
        except BaseException:
            continue
