"""`tracelearn pac` as a Python function: PAC verification of one C file."""

from __future__ import annotations

import ctypes
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..analyses.pac.driver import PAC_LEARNERS, PacOptions, PacResult, verify
from ..analyses.pac.properties import check_target, parse_property
from ..analyses.pac.reuse import ReuseResult, check_model
from ..automata.dfa import DFA
from ..errors import OptionError
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..ir.decisions import DecisionAlphabet, assertions_as_branches
from ..ir.program import Program
from ..ir.transform import copy_program
from ..report.pac_doc import pac_document, pac_reuse_document
from ..semantics.strategies.concolic import STARTS, STRATEGIES
from .deadline import CommandTimeout, watchdog

PAC_KINDS = frozenset({"assertion", "error-call"})


@dataclass
class PacRun:
    doc: dict
    result: PacResult
    program: Program | None


def pac_file(file: str, *, epsilon: float = 0.1, delta: float = 0.9, batch: int = 10, learner: str = "kv",
             strategy: str = "rbs", max_decisions: int = 1000, seed: int = 0, split_conditions: bool = False,
             start: str = "zero", bug_search: int = 4, timeout: float = 900.0, data_model: str = "LP64",
             include: list[str] | None = None, define: dict[str, str] | None = None, entry: str = "main",
             units: list[str] | None = None, progress: Callable[[str], None] | None = None) -> PacRun:
    """Learn the feasible decision vectors of ``file`` with an (epsilon, delta)
    guarantee (delta: the confidence), or find a feasible error (``bug_search``: a batch
    of the bug search per that many of the sampler's, 0 for none). The document is what
    ``tracelearn pac --json`` prints."""
    if not 0 < epsilon < 1:
        raise OptionError(f"epsilon must lie strictly between 0 and 1, not {epsilon:g}")
    if not 0 < delta < 1:
        raise OptionError(f"delta (the confidence) must lie strictly between 0 and 1, not {delta:g}")
    if batch < 1 or max_decisions < 1:
        raise OptionError("batch and max-decisions must be >= 1")
    if bug_search < 0:
        raise OptionError(f"bug-search must be >= 0 (0: none), not {bug_search}")
    if learner not in PAC_LEARNERS:
        raise OptionError(f"unknown learner {learner!r} (choose from {', '.join(PAC_LEARNERS)})")
    if strategy not in STRATEGIES:
        raise OptionError(f"unknown strategy {strategy!r} (choose from {', '.join(STRATEGIES)})")
    if start not in STARTS:
        raise OptionError(f"unknown start of the inputs {start!r} (choose from {', '.join(STARTS)})")
    if not timeout > 0 or timeout == float("inf"):
        raise OptionError("timeout must be a finite number of seconds > 0")
    t0 = time.perf_counter()
    dm = data_model.upper()
    opts = PacOptions(epsilon, delta, batch, learner, strategy, max_decisions, seed, split_conditions, PAC_KINDS,
                      start=start, bug_search=bug_search)
    program: Program | None = None
    result = PacResult("unknown", opts)
    finished = False
    try:  # outside the time limit's block: a late alarm may still land on its last line
        with watchdog(timeout):
            if progress:
                progress("loading the program")
            program = load_program(file, dm, include, define or {}, entry=entry, checks=PAC_KINDS | DEFAULT_CHECKS,
                                   units=tuple(units or ()))
            opts.timeout = max(0.001, timeout - (time.perf_counter() - t0))
            verify(program, opts, progress, result)
            if result.reason == "timeout":  # a solver the limit stopped: the user's limit
                result.reason = f"timeout ({timeout:g} s)"
            finished = True
    except (CommandTimeout, ctypes.ArgumentError) as e:
        if isinstance(e, ctypes.ArgumentError) and "CommandTimeout" not in repr(e):
            raise  # z3 wraps an exception raised inside its callbacks; only ours is a timeout
        if not finished:  # a finished verdict stands
            result.verdict, result.automaton, result.counterexample = "unknown", None, None
            result.reason = f"timeout ({timeout:g} s)" + ("" if program else " while loading the program")
            result.time = time.perf_counter() - t0
    options = {"epsilon": epsilon, "delta": delta, "batch": batch, "learner": learner, "strategy": strategy,
               "max_decisions": max_decisions, "seed": seed, "split_conditions": split_conditions, "start": start,
               "bug_search": bug_search, "timeout": timeout, "entry": entry}
    return PacRun(pac_document(result, file, dm, options), result, program)


def pac(file: str, **options) -> dict:
    """``tracelearn pac FILE --json`` as a function: the same document (options as
    :func:`pac_file`'s)."""
    return pac_file(file, **options).doc


@dataclass
class ReuseRun:
    doc: dict
    result: ReuseResult | None
    program: Program | None


def pac_reuse_file(file: str, model: str, prop: str, *, relearn: bool = True, timeout: float = 900.0,
                   include: list[str] | None = None, define: dict[str, str] | None = None,
                   units: list[str] | None = None, progress: Callable[[str], None] | None = None) -> ReuseRun:
    """Check the property ``prop`` (``analyses.pac.properties.FORMS``) against the model
    that ``tracelearn pac FILE --json`` saved in ``model``, with no relearning when it
    holds; learned again (its options) when the model is refuted and ``relearn``."""
    if not timeout > 0 or timeout == float("inf"):
        raise OptionError("timeout must be a finite number of seconds > 0")
    t0 = time.perf_counter()
    saved = _saved_model(model)
    parsed = parse_property(prop)
    o = saved["options"]
    if o.get("start", "uniform") not in STARTS:
        raise OptionError(f"{model}: unknown start of the inputs {o['start']!r} (choose from {', '.join(STARTS)})")
    opts = PacOptions(saved["epsilon"], saved["delta"], o["batch"], o["learner"], o["strategy"], o["max_decisions"],
                      o["seed"], o["split_conditions"], PAC_KINDS,
                      start=o.get("start", "uniform"),  # models saved before the option were learned so
                      bug_search=o.get("bug_search", 0))
    dm = saved["data_model"]
    result: ReuseResult | None = None
    program: Program | None = None
    first: list[ReuseResult] = []
    try:  # outside the time limit's block: a late alarm may still land on its last line
        with watchdog(timeout):
            if progress:
                progress("loading the program")
            program = load_program(file, dm, include, define or {}, entry=o.get("entry", "main"),
                                   checks=PAC_KINDS | DEFAULT_CHECKS, units=tuple(units or ()))
            _same_decisions(program, opts, saved, model)
            if parsed.is_reachability:
                check_target(program, parsed)
            opts.timeout = max(0.001, timeout - (time.perf_counter() - t0))
            result = check_model(program, DFA.from_dict(saved["automaton"]), parsed, opts, relearn, progress,
                                 first.append)
    except (CommandTimeout, ctypes.ArgumentError) as e:
        if isinstance(e, ctypes.ArgumentError) and "CommandTimeout" not in repr(e):
            raise
        if result is not None:
            pass  # it had finished: the alarm came on the way out
        elif first:  # the model was refuted; the time ran out while learning it again
            result = first[0]
            result.reason += f"; timeout ({timeout:g} s) while learning it again"
        else:
            result = ReuseResult("unknown", parsed, f"timeout ({timeout:g} s)" + ("" if program else
                                                                              " while loading the program"))
        result.time = time.perf_counter() - t0
    return ReuseRun(pac_reuse_document(result, file, model, saved, dm), result, program)


def pac_reuse(file: str, model: str, prop: str, **options) -> dict:
    """``tracelearn pac FILE --model M.json --property P --json`` as a function."""
    return pac_reuse_file(file, model, prop, **options).doc


def _saved_model(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise OptionError(f"--model {path}: cannot read it: {e.strerror}") from None
    except ValueError as e:
        raise OptionError(f"--model {path}: not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("command") != "pac" or "automaton" not in doc:
        raise OptionError(f"--model {path}: not the output of 'tracelearn pac --json'")
    if doc.get("verdict") != "pac-correct" or not doc.get("automaton"):
        raise OptionError(f"--model {path}: its verdict is {doc.get('verdict')!r}, not 'pac-correct': "
                          "it holds no model with a guarantee")
    return doc


def _same_decisions(program: Program, opts: PacOptions, saved: dict, path: str) -> None:
    """The model speaks the program's decision alphabet: the same branches (by file
    name, line and column), or it was learned from another program."""
    prog = assertions_as_branches(copy_program(program), opts.kinds)
    ours = [os.path.basename(i) for i in DecisionAlphabet.of(prog, opts.split_conditions).letters]
    theirs = [os.path.basename(i) for i in saved.get("decisions", {}).get("ids", [])]
    if ours != theirs:
        diff = next((f"{a} here, {b} in the model" for a, b in zip(ours, theirs) if a != b),
                    f"{len(ours)} decisions here, {len(theirs)} in the model")
        raise OptionError(f"--model {path}: learned from another program (its decisions differ: {diff})")

