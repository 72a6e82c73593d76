"""`tracelearn learn-filter` as a Python function: a symbolic transducer learned from
a stream filter written in C (Sigma*). The commands on learned filters are
``filter_properties`` (`filters`) and ``fusion`` (`fuse`)."""

from __future__ import annotations

import ctypes
import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..analyses.streams.cgen import array_source
from ..analyses.streams.driver import LearnOptions, LearnResult, learn
from ..analyses.streams.replay import FilterReplay
from ..analyses.streams.teacher import constants_of
from ..automata.transducer import Transducer
from ..bvterm import UnsupportedTerm
from ..errors import OptionError, TracelearnError, UnsupportedError
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..report.filter_doc import filter_document
from ..semantics.strategies.bigstep import Element, FilterError
from .deadline import CommandTimeout, watchdog


@dataclass
class FilterRun:
    doc: dict
    result: LearnResult


def bit_vector_terms(file_arg: int) -> Callable:
    """A term the transducers cannot hold (floating point, say) met by the analysis: an
    unsupported construct of the filter (its file: positional argument ``file_arg``)."""
    def wrap(f: Callable) -> Callable:
        @functools.wraps(f)
        def call(*args, **kwargs):  # noqa: ANN002, ANN003 - the wrapped function's
            try:
                return f(*args, **kwargs)
            except UnsupportedTerm as e:
                where = args[file_arg] if len(args) > file_arg else kwargs.get("file")
                raise UnsupportedError(f"'{kwargs.get('function')}': {e}: a guard or output outside the "
                                       "transducers' terms (integer terms of the input; no floating point)",
                                       where) from None
        return call
    return wrap


@bit_vector_terms(0)
def learn_filter_file(file: str, *, function: str, lookback: int | None = None, element: str = "char",
                      max_depth: int | None = None, max_boundaries: int = 5000, check: int = 200,
                      seed: int = 0, columns: str = "counterexamples", compare: str = "syntactic",
                      oracle: str = "boundaries", timeout: float = 300.0, data_model: str = "LP64",
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
    if compare not in ("syntactic", "semantic"):
        raise OptionError(f"compare is syntactic or semantic, not {compare!r}")
    if oracle not in ("boundaries", "abstraction"):
        raise OptionError(f"oracle is boundaries or abstraction, not {oracle!r}")
    if not timeout > 0 or timeout == float("inf"):
        raise OptionError("timeout must be a finite number of seconds > 0")
    t0 = time.perf_counter()
    dm = data_model.upper()
    opts = LearnOptions(function, el, lookback, max_depth=max_depth, max_boundaries=max_boundaries, timeout=timeout,
                        columns=columns, compare=compare, oracle=oracle)
    result = LearnResult(opts)
    differential = None
    finished = False
    try:  # outside the time limit's block: a late alarm may still land on its last line
        with watchdog(timeout + 5):
            if progress:
                progress("loading the program")
            program = load_program(file, dm, include, define or {}, entry=function, checks=DEFAULT_CHECKS)
            proc = program.procedures.get(function)
            if proc is not None and proc.params:  # (the stream harness would call it without them)
                raise FilterError(f"a filter takes no parameters (it reads its input with tl_in and tl_peek): "
                                  f"'{function}' has {len(proc.params)}", proc.loc)
            opts.timeout = max(0.001, timeout - (time.perf_counter() - t0))
            learn(program, opts, progress, result)
            if result.transducer is not None:
                result.transducer.compile_all()  # (a term no run can evaluate: refused here, whatever --check)
            suspects = failing_check_inputs(result)
            if result.transducer is not None and (check or suspects):
                if progress:
                    progress(f"comparing the transducer with the interpreter on {check + len(suspects)} inputs")
                differential = differential_check(file, function, el, result, check, seed, dm, include, define,
                                                  first=suspects)
            if suspects and (result.complete or result.exact_up_to is not None) and \
                    (differential is None or differential["disagreement"] is None):
                # a check a big step can fail, from a state no input tried reaches: the
                # proof assumed it holds, and nothing shows that state unreachable
                fc = next(f for ex in result.explorers.values() for f in ex.sem.target.failing.values())
                not_proved(result, f"not proved: a check of the filter may fail ({fc.kind}: {fc.message}, "
                                   f"{fc.loc}) on a big step from a state no input tried reaches, and the "
                                   "search does not show that state unreachable")
            finished = True
    except (CommandTimeout, ctypes.ArgumentError) as e:
        if isinstance(e, ctypes.ArgumentError) and "CommandTimeout" not in repr(e):
            raise
        if not finished:  # else the alarm came on the way out: the result stands
            not_proved(result, f"timeout ({timeout:g} s)")
    options = {"function": function, "lookback": lookback, "element": el.name, "max_depth": max_depth,
               "max_boundaries": max_boundaries, "check": check, "seed": seed, "columns": columns,
               "compare": compare, "oracle": oracle, "timeout": timeout}
    return FilterRun(filter_document(result, file, dm, options, differential), result)


def array_code(run: FilterRun, name: str) -> str:
    """The learned transducer as C on arrays: ``NAME_seq`` and the data-parallel
    ``NAME_par(in, n, out, threads)`` (``cgen.array_source``). Only a proved transducer
    is written: a conjecture's code would not be the filter's."""
    t = run.result.transducer
    if t is None or not run.result.complete:
        raise TracelearnError(f"no C code written: the transducer is not proved equal to the filter "
                              f"({run.result.reason or 'nothing learned'})")
    return array_source(t, name)


def learn_filter(file: str, **options) -> dict:
    """``tracelearn learn-filter FILE --json`` as a function (options as
    :func:`learn_filter_file`'s)."""
    return learn_filter_file(file, **options).doc


def not_proved(result: LearnResult, why: str) -> None:
    """Take back a proof (``complete``, ``exact_up_to``): ``why`` is the reason now."""
    result.complete = False
    result.exact_up_to = None
    result.reason = why


def failing_check_inputs(result: LearnResult) -> list[list[int]]:
    """Inputs to run concretely for the checks a big step's path could fail (the
    explorers' candidates, ``FilterTarget.failing``): the window's values of the
    failing input, oldest first, and their suffixes, with and without the element
    met (a step at the end of the input has none)."""
    out: list[list[int]] = []
    for ex in (result.explorers or {}).values():
        for fc in ex.sem.target.failing.values():
            vals = list(reversed(fc.values))
            for v in [vals[i:] for i in range(len(vals))] + [vals[i:-1] for i in range(len(vals) - 1)]:
                if v not in out:
                    out.append(v)
    return out[:64]


def check_inputs(t: Transducer, el: Element, count: int, seed: int) -> list[list[int]]:
    """``count`` inputs to compare ``t`` with a program on: the empty one, then random
    ones of 1..16 elements, half the elements drawn from the guards' constants and their
    neighbours (so that sequences such as "&amp;" occur)."""
    if count <= 0:
        return []
    rng = random.Random(seed)
    pool = sorted({el.wrap(c + d) for c in constants_of(t) for d in (-1, 0, 1)})
    return [[]] + [[rng.choice(pool) if pool and rng.random() < 0.5 else rng.randint(el.lo, el.hi)
                    for _ in range(rng.randint(1, 16))] for _ in range(count - 1)]


def differential_check(file: str, function: str, el: Element, result: LearnResult, count: int, seed: int,
                       data_model: str, include: list[str] | None, define: dict[str, str] | None,
                       first: list[list[int]] = ()) -> dict:
    """The transducer against the filter in the interpreter (through the stream
    harness, not the big-step strategy the learner used) on the inputs ``first``, then
    ``count`` random ones."""
    t = result.transducer
    assert t is not None
    replay = FilterReplay(file, function, el.bits, data_model, include, define)
    try:
        inputs = list(first) + check_inputs(t, el, count, seed)
        bad = None
        for v in inputs:
            got = t.run(v)
            try:
                want = replay.interpret(v)
            except FilterError as e:  # the filter fails there: the model, learned, is kept
                bad = {"input": v, "program_output": None, "program_error": str(e), "transducer_output": got}
                if result.complete or result.exact_up_to is not None:
                    not_proved(result, f"the filter is outside the class: {e}")
                break
            if got != want:
                here = {"input": v, "program_output": want, "transducer_output": got}
                if result.exact_up_to is not None and len(v) > result.exact_up_to:
                    # past the proved length (where a counter may wrap): no refutation, and
                    # the inputs after it are still checked
                    bad = bad or {**here, "beyond_proved_length": True}
                    continue
                bad = here
                if result.complete or result.exact_up_to is not None:  # a proof the interpreter refutes
                    not_proved(result, f"the interpreter disagrees with the proved transducer on {v} (the "
                                       "engines disagree: please report)")
                break
        return {"inputs": len(inputs), "engine": "interpreter", "from_guard_constants": 0.5,
                "disagreement": bad}
    finally:
        replay.close()
