"""The command's time limit, kept whatever the engine is doing.

Engines watch their deadline cooperatively (every solver call gets the time left,
symbolic execution looks at the clock as it goes), but a phase that never looks
(preprocessing a huge file, a long pure-Python loop) must not run past
``--timeout``. A watchdog alarm raises :class:`CommandTimeout` in the main thread a
little after the deadline; the command then reports what had finished. It is a
``BaseException`` so that no ``except Exception`` on the way swallows it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Callable, Iterator

GRACE_S = 0.25  # the cooperative path normally answers first; this is the backstop
# The alarm fires again every REPEAT_S until the block ends: raised inside a finalizer
# or a weak reference's callback (the garbage collector runs them anywhere), the
# exception is printed as "ignored" and dropped by Python, and the limit was lost
REPEAT_S = 0.5
_Z3_DIR = os.sep + "z3" + os.sep


class CommandTimeout(BaseException):
    pass


def in_z3(frame: FrameType | None) -> bool:
    """Is the interrupted Python code z3's own (its bindings' modules)?"""
    return frame is not None and _Z3_DIR in frame.f_code.co_filename


def _ignore_new_frames(frame: FrameType, event: str, arg: object) -> None:
    return None  # only the frame given a local trace function is traced


def raise_at_next_line(frame: FrameType, live: Callable[[], bool] = lambda: True) -> None:
    """``CommandTimeout`` at ``frame``'s next line, or in its caller if it returns first;
    nothing once ``live()`` is false (the guarded block has ended)."""

    def local(f: FrameType, event: str, arg: object):  # noqa: ANN202 - a trace function
        if not live():
            f.f_trace = None
            sys.settrace(None)
            return None
        if event == "return" and f.f_back is not None:
            f.f_back.f_trace = local  # it returned first: its caller's next line
            return None
        if event in ("line", "return"):
            f.f_trace = None
            sys.settrace(None)
            raise CommandTimeout
        return local

    frame.f_trace = local
    sys.settrace(_ignore_new_frames)


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise ``CommandTimeout`` after ``seconds`` + a grace period, and again every
    ``REPEAT_S`` until the block ends (main thread only)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    live = [True]

    def fire(signum, frame):  # noqa: ANN001 - signal handler signature
        if not live[0]:
            return
        if not in_z3(frame):
            raise CommandTimeout
        # Inside z3's Python wrappers an exception can fall between creating a term
        # and counting its reference (a later free corrupts z3's memory): raise at the
        # next line of the nearest caller that is ours, as a debugger stops (bdb).
        caller = frame
        while caller is not None and in_z3(caller):
            caller = caller.f_back
        if caller is None:
            raise CommandTimeout
        raise_at_next_line(caller, lambda: live[0])

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds + GRACE_S, REPEAT_S)
    try:
        yield
    finally:
        live[0] = False  # a raise waiting for a line of the caller's is dropped with the block
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if sys.gettrace() is _ignore_new_frames:  # the time ran out on the way out
            sys.settrace(None)
