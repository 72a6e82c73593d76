"""`tracelearn learn-filter` as a Python function: a symbolic transducer learned from
a stream filter written in C (Sigma*)."""

from __future__ import annotations

import ctypes
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..analyses.streams.driver import LearnOptions, LearnResult, learn
from ..analyses.streams.replay import FilterReplay
from ..analyses.streams.teacher import constants_of
from ..errors import OptionError
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..report.filter_doc import filter_document
from ..semantics.strategies.bigstep import Element
from .deadline import CommandTimeout, watchdog


@dataclass
class FilterRun:
    doc: dict
    result: LearnResult


def learn_filter_file(file: str, *, function: str, lookback: int | None = None, element: str = "char",
                      max_depth: int | None = None, max_boundaries: int = 5000, check: int = 200,
                      seed: int = 0, columns: str = "counterexamples", timeout: float = 300.0, data_model: str = "LP64",
                      include: list[str] | None = None, define: dict[str, str] | None = None,
                      progress: Callable[[str], None] | None = None) -> FilterRun:
    """Learn ``function`` of ``file`` as a symbolic transducer with lookback. The
    document is what ``tracelearn learn-filter --json`` prints. ``check``: random inputs
    (lengths 0..16, half the elements from the guards' constants) on which the
    transducer is compared with the filter run in the interpreter."""
    el = Element.named(element)
    if lookback is not None and not 0 <= lookback <= 64:
        raise OptionError(f"lookback must lie in 0..64, not {lookback}")
    if max_depth is not None and max_depth < 1:
        raise OptionError("max-depth must be >= 1")
    if check < 0:
        raise OptionError("check must be >= 0")
    if columns not in ("paper", "counterexamples"):
        raise OptionError(f"columns is paper or counterexamples, not {columns!r}")
    if not timeout > 0 or timeout == float("inf"):
        raise OptionError("timeout must be a finite number of seconds > 0")
    t0 = time.perf_counter()
    dm = data_model.upper()
    opts = LearnOptions(function, el, lookback, max_depth=max_depth, max_boundaries=max_boundaries, timeout=timeout,
                        columns=columns)
    result = LearnResult(opts)
    differential = None
    with watchdog(timeout + 5):
        try:
            if progress:
                progress("loading the program")
            program = load_program(file, dm, include, define or {}, entry=function, checks=DEFAULT_CHECKS)
            opts.timeout = max(0.001, timeout - (time.perf_counter() - t0))
            learn(program, opts, progress, result)
            if result.transducer is not None and check:
                if progress:
                    progress(f"comparing the transducer with the interpreter on {check} inputs")
                differential = differential_check(file, function, el, result, check, seed, dm, include, define)
        except (CommandTimeout, ctypes.ArgumentError) as e:
            if isinstance(e, ctypes.ArgumentError) and "CommandTimeout" not in repr(e):
                raise
            result.complete = False
            result.reason = f"timeout ({timeout:g} s)"
    options = {"function": function, "lookback": lookback, "element": el.name, "max_depth": max_depth,
               "max_boundaries": max_boundaries, "check": check, "seed": seed, "columns": columns,
               "timeout": timeout}
    return FilterRun(filter_document(result, file, dm, options, differential), result)


def learn_filter(file: str, **options) -> dict:
    """``tracelearn learn-filter FILE --json`` as a function (options as
    :func:`learn_filter_file`'s)."""
    return learn_filter_file(file, **options).doc


def differential_check(file: str, function: str, el: Element, result: LearnResult, count: int, seed: int,
                       data_model: str, include: list[str] | None, define: dict[str, str] | None) -> dict:
    """The transducer against the filter in the interpreter (through the stream
    harness, not the big-step strategy the learner used) on ``count`` inputs."""
    t = result.transducer
    assert t is not None
    rng = random.Random(seed)
    pool = sorted({el.wrap(c + d) for c in constants_of(t) for d in (-1, 0, 1)})
    replay = FilterReplay(file, function, el.bits, data_model, include, define)
    try:
        inputs = [[]] + [[rng.choice(pool) if pool and rng.random() < 0.5 else rng.randint(el.lo, el.hi)
                          for _ in range(rng.randint(1, 16))] for _ in range(count - 1)]
        bad = None
        for v in inputs:
            got, want = t.run(v), replay.interpret(v)
            if got != want:
                bad = {"input": v, "program_output": want, "transducer_output": got}
                break
        return {"inputs": len(inputs), "engine": "interpreter", "from_guard_constants": 0.5,
                "disagreement": bad}
    finally:
        replay.close()
