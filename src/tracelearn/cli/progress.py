"""A live progress line on the terminal.

Shown only when stderr is a terminal and the user did not ask for ``--quiet``;
otherwise every call is a no-op, so drivers can report progress freely. The
engines never import this: they take a plain ``progress`` callback
(``Callable[[str], None]``) and the command passes :meth:`Progress.update`.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, enabled: bool = True, stream: TextIO | None = None, min_interval_s: float = 0.1) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.min_interval_s = min_interval_s
        self.t0 = time.perf_counter()
        self._last = 0.0
        self._shown = False

    def update(self, text: str) -> None:
        """Replace the line with ``text`` (rate-limited), prefixed by the elapsed time."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < self.min_interval_s:
            return
        self._last = now
        width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
        line = f"[{now - self.t0:6.1f}s] {text}"[:width]
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        """Erase the line (before the result is printed)."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
