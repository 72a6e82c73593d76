"""The command's time limit, kept whatever the engine is doing.

Engines watch their deadline cooperatively (every solver call gets the time left,
symbolic execution looks at the clock as it goes), but a phase that never looks
(preprocessing a huge file, a long pure-Python loop) must not run past
``--timeout``. A watchdog alarm raises :class:`CommandTimeout` in the main thread a
little after the deadline; the command then reports what had finished. It is a
``BaseException`` so that no ``except Exception`` on the way swallows it.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

GRACE_S = 0.25  # the cooperative path normally answers first; this is the backstop


class CommandTimeout(BaseException):
    pass


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise ``CommandTimeout`` after ``seconds`` + a grace second (main thread only)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def fire(signum, frame):  # noqa: ANN001 - signal handler signature
        raise CommandTimeout

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds + GRACE_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
