"""A function run in a forked child process, its value sent back through a pipe.

For Python work beside the model checker (the bug search, the Horn-clause proof with
its concrete calls and summary lemmas): on a thread, it would hold the interpreter lock
that the model checker's z3 calls release and wait for again, and each of those
thousands of calls would then wait for a switch interval (a program checked in 0.3 s
took 2.5 s).

Fork only while the process has one thread: the child then holds no lock another
thread took. The child never collects the parent's objects (a finalizer there could act
for the parent: close a stream, remove a file) and leaves without the parent's clean-up.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pipe


class ChildLost(Exception):
    """The child ended without a value: killed, out of memory, its work raised, or its
    value would not unpickle. The message says which; ``answered``: the child did
    answer (an exception, or what would not unpickle), it was not killed."""

    def __init__(self, reason: str, answered: bool = False) -> None:
        super().__init__(reason)
        self.answered = answered


@dataclass
class _Raised:
    reason: str


def can_fork() -> bool:
    """A fork is safe here: the system has one and this process runs one thread."""
    return hasattr(os, "fork") and threading.active_count() == 1


class Forked:
    """``work()`` in a forked child; ``receive`` its value, ``kill`` it. With ``label``,
    the child first sends ``label(value)`` (a few bytes, read by ``label``): a thread
    of the parent can wait for it and act, and leave the value (whose unpickling makes
    objects, z3 terms among them) to the thread that uses it. ``nice``: the child's
    scheduling priority is lowered by that much."""

    def __init__(self, work: Callable[[], object], label: Callable[[object], bytes] | None = None,
                 nice: int = 0) -> None:
        self._labelled = label is not None
        reader, writer = Pipe(duplex=False)
        for stream in (sys.stdout, sys.stderr):  # else the child's exit could write them again
            stream.flush()
        gc.freeze()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                reader.close()
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                if nice:
                    os.nice(nice)
                try:
                    value: object = work()
                except BaseException as e:  # said to the parent, which decides
                    value = _Raised(f"{type(e).__name__}: {e}")
                if label is not None:
                    writer.send_bytes(b"" if isinstance(value, _Raised) else label(value))
                writer.send(value)
                code = 0
            finally:
                os._exit(code)
        gc.unfreeze()
        writer.close()
        self.pid: int | None = pid
        self._reader = reader

    def label(self) -> bytes:
        """The child's label (waiting for it; ``b""`` when its work raised);
        ``ChildLost`` when none will come."""
        assert self._labelled
        try:
            got = self._reader.recv_bytes()
        except (EOFError, OSError) as e:
            raise ChildLost("the process ended without an answer") from e
        self._labelled = False
        return got

    def receive(self, timeout: float | None = None) -> object:
        """The child's value (waiting at most ``timeout`` seconds: ``TimeoutError``
        past it; after its label, if it has one); ``ChildLost`` when none will come."""
        if self._labelled:
            self.label()
        try:
            ready = timeout is None or self._reader.poll(max(0.0, timeout))
            value = self._reader.recv() if ready else None
        except (EOFError, OSError) as e:
            raise ChildLost("the process ended without an answer") from e
        except Exception as e:
            raise ChildLost(f"its answer could not be read: {e}", answered=True) from e
        if not ready:  # (a TimeoutError is an OSError: raised outside the try)
            raise TimeoutError("the child has not answered")
        if isinstance(value, _Raised):
            raise ChildLost(value.reason, answered=True)
        return value

    def kill(self) -> None:
        """End the child (if it still runs) and reap it; a ``receive`` waiting meanwhile
        raises ``ChildLost``."""
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

    def close(self) -> None:
        self.kill()
        self._reader.close()
