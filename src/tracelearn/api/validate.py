"""``tracelearn.validate``: re-check an SV-COMP correctness witness (YAML format 2.0).

Each loop invariant of the witness is lowered at its loop head, in the loop's scope,
as ``assert(inv); forget every variable in scope; assume(inv)``
(``frontend/annotations.py``), and the program so cut is checked with the portfolio
of ``check``. ``confirmed``: it is safe, so every invariant holds on entry, is kept by
an iteration and implies the property; ``rejected``: an invariant fails (the
counterexample shows where) or the invariants do not imply the property; ``unknown``
otherwise. Violation witnesses are not validated yet (``unknown``, said so).
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import yaml

from ..errors import OptionError, TracelearnError
from ..frontend.annotations import LoopAnnotation
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..analyses.check import CheckOptions, check as portfolio
from .tasks import parse_property


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


def validate(witness: str, file: str, *, timeout: float = 60.0, data_model: str | None = None) -> dict:
    """Validate ``witness`` for the C program ``file``; returns what ``tracelearn
    validate --json`` prints."""
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
    if "invariant_set" not in kinds:
        doc.update(type="violation" if "violation_sequence" in kinds else "unknown", result="unknown",
                   reason="validating violation witnesses is not implemented yet" if "violation_sequence" in kinds
                   else f"no invariant_set or violation_sequence entry (entries: {sorted(map(str, kinds))})",
                   invariants=[], time_s=round(time.perf_counter() - t0, 4))
        return doc
    prop = parse_property(f"CHECK( init(main()), LTL({spec}) )", "witness specification", witness)
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
    program = load_program(file, dm, checks=prop.checks | DEFAULT_CHECKS, entry=prop.entry, annotations=annotations)
    checks = prop.checks | frozenset({"invariant"})
    res = portfolio(program, CheckOptions(timeout_s=max(0.001, timeout - (time.perf_counter() - t0)), checks=checks,
                                          prove="all"))
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
