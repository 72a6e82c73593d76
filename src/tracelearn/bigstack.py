"""Run deeply recursive work (parsing nested expressions, symbolic execution of
recursion) on a thread with a large stack, so Python's recursion limit is not
the bound."""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

T = TypeVar("T")
STACK_BYTES = 1 << 29
RECURSION_LIMIT = 200_000


def run_with_big_stack(fn: Callable[[], T]) -> T:
    result: list = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn())
        except BaseException as e:  # re-raised in the caller's thread
            error.append(e)

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        # daemon: a command stopped by its time limit or Ctrl-C exits without waiting
        t = threading.Thread(target=target, name="tracelearn-deep", daemon=True)
        t.start()
        t.join()
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return result[0]
