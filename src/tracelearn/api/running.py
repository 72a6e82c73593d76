"""`tracelearn run` as a function: one interpreted run of a program, and its record."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import BinaryIO, Callable

from ..errors import OptionError
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..semantics.inputs import InputSource
from ..semantics.interpreter import Interpreter, InterpOptions
from ..semantics.runs import RunResult
from .options import parse_checks, parse_defines

# The exit status of `tracelearn run` for each way a run ends (the shell's conventions:
# 134 is a program killed by SIGABRT, 124 what timeout(1) gives).
VIOLATION_STATUS, LIMIT_STATUS = 134, 124


@dataclass
class RunOptions:
    inputs: list = field(default_factory=list)
    seed: int = 0
    max_steps: int | None = None
    checks: str | None = None  # as --checks
    all_inputs: bool = False
    args: list[str] = field(default_factory=list)
    data_model: str = "LP64"
    include: list[str] = field(default_factory=list)
    define: list[str] = field(default_factory=list)
    entry: str = "main"
    unit: list[str] = field(default_factory=list)


def run_program(file: str, opts: RunOptions, stdout: BinaryIO, stderr: BinaryIO, stdin: BinaryIO,
                loaded: Callable[[list[str]], None] | None = None) -> tuple[RunResult, dict[str, int], list[str]]:
    """Interpret ``file`` once; returns the run, the functions called that have no body
    or model (name -> calls: their results were inputs), and the frontend's warnings
    (also given to ``loaded`` before the run starts)."""
    checks = parse_checks(opts.checks)
    program = load_program(file, opts.data_model.upper(), opts.include, parse_defines(opts.define),
                           entry=opts.entry, checks=checks | DEFAULT_CHECKS, units=opts.unit or ())
    if loaded is not None:
        loaded(list(program.warnings))
    if opts.all_inputs and opts.args:
        raise OptionError("--all-inputs takes argv from --inputs: give no program arguments")
    iopts = InterpOptions(real_io=not opts.all_inputs, stdout=stdout, stderr=stderr, stdin=stdin,
                          max_steps=opts.max_steps, checks=checks)
    it = Interpreter(program, iopts)
    r = it.run(InputSource(list(opts.inputs), seed=opts.seed), argv=None if opts.all_inputs else list(opts.args))
    return r, dict(it.native.unmodelled), list(program.warnings)


def exit_status(r: RunResult) -> int:
    """What `tracelearn run` exits with: the program's status, or how the run was stopped."""
    if r.status == "violation" and r.violation is not None:
        return VIOLATION_STATUS
    if r.status == "limit":
        return LIMIT_STATUS
    if r.status == "infeasible":
        return 0
    if r.note == "abort":
        return VIOLATION_STATUS
    return r.exit_code or 0


def run_document(file: str, r: RunResult, unmodelled: dict[str, int], warnings: list[str],
                 out: bytes | None, err: bytes | None) -> dict:
    status = "abort" if r.status == "ok" and r.note == "abort" else ("exit" if r.status == "ok" else r.status)
    return {
        "schema_version": "1.0", "command": "run", "file": file,
        "status": status,  # exit | violation | abort | limit | infeasible (an assumption failed)
        "exit_code": r.exit_code, "exit_status": exit_status(r),
        "violation": r.violation.to_json() if r.violation is not None else None,
        "note": r.note,
        "stdout": out.decode("utf-8", errors="replace") if out is not None else None,
        "stderr": err.decode("utf-8", errors="replace") if err is not None else None,
        "inputs": [i.to_json() for i in r.inputs],
        "unmodelled_calls": unmodelled,
        "warnings": warnings,
        "steps": r.steps,
    }


def run(file: str, inputs: list | None = None, args: list[str] | None = None, stdin: bytes = b"",
        **options) -> dict:
    """Interpret ``file`` once (``inputs``: the nondeterministic values in order, then
    random by ``seed``; ``args``: argv; ``stdin``: its bytes); returns what
    ``tracelearn run --json`` prints, the program's output included. Options:
    ``seed``, ``max_steps``, ``checks``, ``all_inputs``, ``data_model``, ``include``,
    ``define``, ``entry``, ``unit``."""
    known = set(RunOptions.__dataclass_fields__) - {"inputs", "args"}
    bad = set(options) - known
    if bad:
        raise OptionError(f"unknown option '{sorted(bad)[0]}' of run")
    opts = RunOptions(inputs=list(inputs or []), args=list(args or []), **options)
    out, err = io.BytesIO(), io.BytesIO()
    r, unmodelled, warnings = run_program(file, opts, out, err, io.BytesIO(stdin))
    return run_document(file, r, unmodelled, warnings, out.getvalue(), err.getvalue())
