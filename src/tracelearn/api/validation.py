"""``tracelearn.validate``: re-check an SV-COMP correctness witness (YAML format 2.0).

Each loop invariant of the witness is lowered at its loop head, in the loop's scope,
as ``assert(inv); forget every variable in scope; assume(inv)``
(``frontend/annotations.py``), and the program so cut is checked with the portfolio
of ``check``. ``confirmed``: it is safe, so every invariant holds on entry, is kept by
an iteration and implies the property; ``rejected``: an invariant fails (the
counterexample shows where) or the invariants do not imply the property; ``unknown``
otherwise.

A violation witness is validated by execution (as SV-COMP's execution-based
validators do): the values its ``function_return`` waypoints give the nondeterministic
calls (``\\result == V``) are the inputs of a run of the interpreter, in waypoint
order; ``confirmed`` when that run fails the witness's property at its target line,
``rejected`` when it ends otherwise, ``unknown`` when the waypoints do not fix the
inputs (constraints other than ``\\result == V``, or a run that needs more inputs
and does not fail).
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import OptionError, TracelearnError
from ..frontend.annotations import LoopAnnotation
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..analyses.check import CheckOptions, check as portfolio
from ..semantics.inputs import InputRecord, InputSource
from ..semantics.interpreter import Interpreter
from ..semantics.runs import InterpOptions
from .checking import OVERFLOW_CONVENTIONS, SVCOMP_UNDEFINED
from .tasks import Property, parse_property

_RESULT = re.compile(r"^\s*\\result\s*==\s*\(?\s*(-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))\s*\)?[uUlLfF]*\s*;?\s*$")


def _violation(entries: list[dict], witness: str, file: str, dm: str, prop: Property,
               assumed: frozenset[str]) -> dict:
    """Execution-based validation of a violation witness (see the module's text)."""
    waypoints = []
    for e in entries:
        if e.get("entry_type") != "violation_sequence":
            continue
        for seg in e.get("content") or []:
            for item in (seg or {}).get("segment") or []:
                wp = (item or {}).get("waypoint") or {}
                waypoints.append(wp)
    target = next((w for w in waypoints if w.get("type") == "target"), None)
    if target is None:
        raise TracelearnError("a violation witness needs a target waypoint", witness)
    values, lines, unfixed = [], [], []
    for w in waypoints:
        if w.get("type") != "function_return":
            continue
        c = str((w.get("constraint") or {}).get("value", ""))
        m = _RESULT.match(c)
        line = (w.get("location") or {}).get("line")
        if m is None:
            unfixed.append(f"line {line}: {c!r}")
            continue
        text = m.group(1)
        values.append(float(text) if any(ch in text for ch in ".eE") and not text.startswith(("0x", "-0x"))
                      else int(text, 0))
        lines.append(line)
    # an assumed-absent failure (a signed overflow, for SV-COMP) stops the run short of the target
    program = load_program(file, dm, checks=prop.checks | DEFAULT_CHECKS | assumed, entry=prop.entry)
    src = _ReturnValues(list(values), seed=0)
    r = Interpreter(program, InterpOptions(checks=prop.checks | assumed, max_steps=20_000_000)).run(src, argv=None)
    drawn = [i.loc.line for i in r.inputs if _returned(i.origin)]
    out = {"type": "violation", "invariants": [], "inputs": values,
           "run": {"status": r.status, "violation": r.violation.to_json() if r.violation else None,
                   "inputs_drawn": len(r.inputs)}}
    tline = (target.get("location") or {}).get("line")
    if drawn[:len(lines)] != lines[:len(drawn)]:
        out.update(result="unknown", reason=f"the witness's inputs (lines {lines}) are not the run's "
                                            f"(lines {drawn[:len(lines) + 2]})")
    elif r.status == "violation" and r.violation is not None and r.violation.loc.line == tline:
        extra = len(drawn) - len(values)
        out.update(result="confirmed", reason=f"the run with the witness's inputs fails: {r.violation.message} at "
                                              f"{r.violation.loc}" + (f" ({extra} more inputs drawn)" if extra > 0 else ""))
    elif unfixed or len(drawn) > len(values):
        out.update(result="unknown", reason="the waypoints do not fix every input" +
                   (f" ({'; '.join(unfixed[:3])})" if unfixed else "") + f"; the run ended {r.status}")
    else:
        where = f" ({r.violation.kind} at {r.violation.loc})" if r.violation else ""
        out.update(result="rejected", reason=f"the run with the witness's inputs ends {r.status}{where}, "
                                             f"not at the target line {tline}")
    return out


def _returned(origin: str) -> bool:
    """An input a function returns (``__VERIFIER_nondet_int()``): what a witness's
    function_return waypoints give; the others (an uninitialised variable) it cannot."""
    return origin.endswith(")")


@dataclass
class _ReturnValues(InputSource):
    """The witness's values for the functions' returns, in order; any value for the
    other inputs."""

    def next(self, t, origin, loc):
        if _returned(origin):
            return super().next(t, origin, loc)
        v = self._random(t)
        self.consumed.append(InputRecord(len(self.consumed), origin, loc, str(t), v))
        return v


def _entries(path: str) -> list[dict]:
    try:
        doc = yaml.safe_load(Path(path).read_text())
    except OSError as e:
        raise OptionError(f"{path}: cannot read the witness ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else path
        raise TracelearnError(f"not a YAML witness ({getattr(e, 'problem', e)})", where) from None
    if not isinstance(doc, list) or not all(isinstance(d, dict) for d in doc):
        raise TracelearnError("a witness (format 2.0) is a list of entries", path)
    return doc


def validate(witness: str, file: str, *, timeout: float = 60.0, data_model: str | None = None,
             signed_overflow: str = "undefined") -> dict:
    """Validate ``witness`` for the C program ``file``; returns what ``tracelearn
    validate --json`` prints. ``signed_overflow``: SV-COMP's convention, as `check`
    takes it for a task: "undefined" (assumed not to happen) or "wraps"."""
    if signed_overflow not in OVERFLOW_CONVENTIONS:
        raise OptionError(f"signed_overflow is {' or '.join(OVERFLOW_CONVENTIONS)}, not {signed_overflow!r}")
    t0 = time.perf_counter()
    entries = _entries(witness)
    kinds = {e.get("entry_type") for e in entries}
    meta = (entries[0].get("metadata") or {}) if entries else {}
    task = meta.get("task") or {}
    dm = (data_model or task.get("data_model") or "ILP32").upper()
    spec = task.get("specification") or "G ! call(reach_error())"
    doc: dict = {"command": "validate", "witness": witness, "file": file, "data_model": dm, "specification": spec,
                 "warnings": []}
    hashes = task.get("input_file_hashes") or {}
    if hashes and Path(file).is_file():
        mine = hashlib.sha256(Path(file).read_bytes()).hexdigest()
        if mine not in hashes.values():
            doc["warnings"].append(f"{file}: its SHA-256 is not the one the witness names (another version?)")
    prop = parse_property(f"CHECK( init(main()), LTL({spec}) )", "witness specification", witness)
    assumed = SVCOMP_UNDEFINED - prop.checks if signed_overflow == "undefined" else frozenset()
    doc["signed_overflow"] = signed_overflow
    if "invariant_set" not in kinds:
        if "violation_sequence" not in kinds:
            raise TracelearnError(f"no invariant_set or violation_sequence entry (entries: {sorted(map(str, kinds))})",
                                  witness)
        doc.update(_violation(entries, witness, file, dm, prop, assumed))
        doc["time_s"] = round(time.perf_counter() - t0, 4)
        return doc
    annotations: list[LoopAnnotation] = []
    skipped = []
    for i, e in enumerate(entries):
        for item in (e.get("content") or []) if e.get("entry_type") == "invariant_set" else []:
            inv = (item or {}).get("invariant") or {}
            loc = inv.get("location") or {}
            where = f"{witness}: entry {i + 1}, invariant at line {loc.get('line')}"
            if inv.get("type") != "loop_invariant" or inv.get("format", "c_expression") != "c_expression":
                skipped.append(f"{where}: {inv.get('type')} ({inv.get('format')}) is not checked")
                continue
            if not isinstance(loc.get("line"), int) or not isinstance(inv.get("value"), str):
                raise TracelearnError("a loop invariant needs location.line and a value", where)
            annotations.append(LoopAnnotation(loc["line"], loc.get("column"), inv["value"], loc.get("function"), where))
    program = load_program(file, dm, checks=prop.checks | DEFAULT_CHECKS | assumed, entry=prop.entry,
                           annotations=annotations)
    checks = prop.checks | frozenset({"invariant"})
    res = portfolio(program, CheckOptions(timeout_s=max(0.001, timeout - (time.perf_counter() - t0)), checks=checks,
                                          prove="all", assumed=assumed))
    cex = res.counterexample
    if res.verdict == "true":
        result, reason = "confirmed", f"the program cut at the invariants is safe (proved by {res.proved_by})"
    elif res.verdict == "false" and cex is not None and cex.kind == "invariant":
        result, reason = "rejected", f"{cex.message} does not hold at {cex.loc}"
    elif res.verdict == "false" and cex is not None:
        result, reason = "rejected", (f"the invariants do not imply the property: {cex.kind} at {cex.loc} "
                                      f"({cex.message})")
    else:
        result, reason = "unknown", res.reason or res.verdict
    doc.update(type="correctness", result=result, reason=reason,
               invariants=[{"line": a.line, "column": a.column, "function": a.function, "value": a.text}
                           for a in annotations],
               not_checked=skipped, verdict=res.verdict,
               counterexample=cex.to_json() if cex is not None else None,
               time_s=round(time.perf_counter() - t0, 4))
    return doc
