"""``tracelearn.check``: bounded model checking, the data of ``tracelearn check --json``."""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, Iterable

from ..analyses.counterexample import CexAnalysis, CexOptions, analyze
from .deadline import CommandTimeout, watchdog
from .options import parse_checks, parse_loop_bounds
from .tasks import Task, load_tasks, property_verdict, status
from ..errors import OptionError
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..ir.program import Program
from ..report.check_doc import check_document
from ..report.trace_text import reproduce_command
from ..analyses.check import CheckOptions, CheckProgress, CheckResult, check as bmc_check
from ..analyses.proofs import PROVE_CHOICES, ProofBudget


@dataclass
class CheckRun:
    """Everything a check produced: the document, and what the text output draws on."""

    doc: dict
    result: CheckResult
    program: Program | None
    analysis: CexAnalysis | None
    checks: frozenset[str]


def check_run(
    file: str,
    *,
    bound: int | None = None,
    timeout: float = 60.0,
    checks: str | Iterable[str] | None = None,
    unwind_loop: Iterable[str] | dict[str, int] | None = None,
    minimize: str = "none",
    method: str = "optimal",
    explain: bool = False,
    causes_inputs_only: bool = False,
    explain_timeout: float = 120.0,
    data_model: str = "LP64",
    entry: str = "main",
    include: list[str] | None = None,
    define: dict[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
    hard_deadline: bool = False,
    prove: str | None = None,
    undefined: Iterable[str] = (),
    assumed: Iterable[str] = (),
    units: Iterable[str] = (),
    bug_search: bool | None = None,
    proof_budget: ProofBudget | None = None,
) -> CheckRun:
    """Check ``file``; ``hard_deadline`` (the CLI's) also stops phases that do not
    watch the clock, with an alarm signal (main thread only); ``undefined``: check
    kinds (``overflow``, ``shift``) treated as undefined behaviour beyond the default
    ones (bounds, pointer, div-by-zero): never followed, and no `true` past them;
    ``assumed``: check kinds whose failure is assumed not to happen (SV-COMP's
    convention for undefined behaviour): never followed, never a goal, and named in
    the result's ``assumptions`` when one is reachable; ``units``: more translation
    units linked with ``file`` (C files or compilation databases); ``bug_search``: the
    concolic bug search beside the model checker (None: on when the bound deepens and
    the counterexample is neither minimized nor explained, which need the model
    checker's equation); ``proof_budget``: how the Horn-clause proof shares its time
    between its stages (``ProofBudget``'s defaults when None)."""
    t0 = time.perf_counter()
    if bound is not None and bound < 1:
        raise OptionError("bound must be >= 1")
    if not timeout > 0 or timeout == float("inf"):
        raise OptionError("timeout must be a finite number of seconds > 0")
    if minimize not in ("none", "length", "values", "all") or method not in ("optimal", "greedy"):
        raise OptionError("minimize is none|length|values|all and method optimal|greedy")
    if bug_search and (minimize != "none" or explain):
        raise OptionError("--bug-search and --minimize/--explain exclude each other: a counterexample of the bug "
                          "search has no model checker's equation to minimize or explain over")
    if prove is not None and prove not in PROVE_CHOICES:
        raise OptionError(f"prove is {'|'.join(PROVE_CHOICES)}, not {prove!r}")
    check_set = checks if isinstance(checks, frozenset) else (
        parse_checks(checks if checks is None or isinstance(checks, str) else ",".join(checks)))
    loop_bounds = dict(unwind_loop) if isinstance(unwind_loop, dict) else parse_loop_bounds(
        list(unwind_loop) if unwind_loop else None)
    dm = data_model.upper()
    done = CheckProgress()
    program: Program | None = None
    guard = watchdog(timeout) if hard_deadline else nullcontext()
    with guard:
        try:
            if progress:
                progress("loading the program")
            # bounds and div-by-zero are always in the program: switched off, they still
            # mark undefined behaviour (see analyses/check.py)
            ub, absent = frozenset(undefined), frozenset(assumed) - check_set
            program = load_program(file, dm, include, define or {}, entry=entry,
                                   checks=check_set | DEFAULT_CHECKS | ub | absent, units=tuple(units))
            if bug_search is None:
                bug_search = bound is None and minimize == "none" and not explain
            opts = CheckOptions(bound=bound, timeout_s=max(0.001, timeout - (time.perf_counter() - t0)),
                                checks=check_set, loop_bounds=loop_bounds, progress=progress, prove=prove,
                                bug_search=bug_search, proof_budget=proof_budget or ProofBudget())
            opts.undefined = opts.undefined | ub
            opts.assumed = absent
            result = bmc_check(program, opts, done)
        except CommandTimeout:
            result = done.stopped(f"timeout ({timeout:g} s)" + ("" if program else " while loading the program"))
    analysis = None
    if result.counterexample is not None and result.encoding is not None:  # (not the bug search's)
        if progress and (minimize != "none" or explain):
            progress("minimizing and explaining the counterexample")
        copts = CexOptions(minimize, method, explain, causes_inputs_only, timeout, explain_timeout)
        analysis = analyze(result, check_set, copts)
        result.counterexample = analysis.cex
    doc = check_document(result, file, dm, entry, check_set, time.perf_counter() - t0,
                         program.warnings if program else [], loop_bounds)
    if result.counterexample is not None and doc["counterexample"] is not None:
        doc["counterexample"]["reproduce"] = reproduce_command(file, result.counterexample, dm, entry, units,
                                                                  include or (), define)
    if analysis is not None:
        doc["minimization"] = analysis.minimize_stats.to_json() if analysis.minimize_stats else None
        doc["explanation"] = analysis.explanation.to_json() if analysis.explanation else None
    if units:
        doc["units"] = list(units)
    return CheckRun(doc, result, program, analysis, check_set)


SVCOMP_UNDEFINED = frozenset({"overflow", "shift"})


OVERFLOW_CONVENTIONS = ("undefined", "wraps")


def check_task(task: Task, signed_overflow: str = "undefined", **options) -> CheckRun:
    """Check one SV-COMP run (a C file and a property): the property decides the checks
    and the entry; the document gains ``task`` (the answer, the expected verdict, the
    status and the SV-COMP score)."""
    for k in ("checks", "entry", "data_model"):
        if k in options:
            raise OptionError(f"{k} comes from the property and the task; it cannot be given with one")
    # SV-COMP's verdicts assume a task has no undefined behaviour (a task with some gets
    # rewritten: its unreach-call property replaced by no-overflow false): a signed
    # overflow or a bad shift ends the path (a reach_error behind one is not reached),
    # and one found reachable is named in `assumptions`. `signed_overflow="wraps"`:
    # older task sets whose verdicts need wrap-around.
    if signed_overflow not in OVERFLOW_CONVENTIONS:
        raise OptionError(f"signed_overflow is {' or '.join(OVERFLOW_CONVENTIONS)}, not {signed_overflow!r}")
    assumed = SVCOMP_UNDEFINED - task.property.checks if signed_overflow == "undefined" else frozenset()
    run = check_run(task.file, checks=task.property.checks, entry=task.property.entry,
                    data_model=task.data_model, assumed=assumed, **options)
    cex = run.result.counterexample
    answer, sub = property_verdict(task.property, run.result.verdict, cex.kind if cex else None,
                                   cex.prop_id if cex else None)
    st, score = status(task, answer, sub)
    run.doc["task"] = {
        "definition": task.source, "property": task.property.name, "subproperties": list(task.property.subproperties),
        "answer": answer if sub is None or len(task.property.subproperties) == 1 else f"false({sub})",
        "result": answer if sub is None else f"false({sub})",  # as SV-COMP and BenchExec write it
        "expected": task.expected if not task.expected_sub else f"{task.expected}({task.expected_sub})",
        "status": st, "score": score,
        "undecided": list(task.property.undecided),
    }
    return run


def check(file: str | list[str], **options) -> dict:
    """Bounded model checking of ``file``; returns what ``tracelearn check --json``
    prints. Options are the command's, with underscores: ``bound``, ``timeout``,
    ``checks`` ("assertion,bounds" or a list), ``unwind_loop`` (["12=3"] or
    {"12": 3}), ``minimize``, ``method``, ``explain``, ``data_model``, ``entry``,
    ``include``, ``define``, ``prove`` ("none", "kind", "chc", "all"; default: "all" unless
    ``bound`` is given); ``progress`` is called with a line of text per phase.
    ``property`` (a ``.prp`` file), or a task ``.yml`` as ``file``, checks an SV-COMP
    property instead of ``checks``. ``file`` may be a list of C files (or compilation
    databases), linked as ``units`` with the first."""
    if not isinstance(file, str):
        file, *more = list(file)
        options["units"] = more + list(options.get("units") or ())
    prop = options.pop("property", None)
    overflow = options.pop("signed_overflow", None)
    if prop is not None or str(file).endswith((".yml", ".yaml")):
        if overflow is not None:
            options["signed_overflow"] = overflow
        tasks = load_tasks(file, prop, options.pop("data_model", "ILP32"))
        return check_task(one_task(tasks, file), **options).doc
    if overflow is not None:
        raise OptionError("signed_overflow is the convention of an SV-COMP task (give a property or a .yml)")
    return check_run(file, **options).doc


def one_task(tasks: list[Task], source: str) -> Task:
    if len(tasks) != 1:
        props = ", ".join(t.property.name for t in tasks) or "none tracelearn checks"
        raise OptionError(f"{source}: {len(tasks)} runs (properties: {props}); choose one with --property FILE.prp")
    return tasks[0]

