"""CBMC-style text of counterexamples (the format of Groce & Kroening, Figs. 2-3)."""

from __future__ import annotations

import math
import shlex
from typing import Iterable

from ..semantics.traces import Counterexample

RULE = "-" * 52


def value_text(value) -> str:
    if isinstance(value, (bytes, list)):
        return "{" + ", ".join(value_text(b) for b in value[:32]) + (", ..." if len(value) > 32 else "") + "}"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def counterexample_text(cex: Counterexample, full: bool = False) -> str:
    """``State N file F line L function FN`` blocks with ``lhs=value (binary)``.

    Internal steps (temporaries, hidden parameter copies) are shown only with
    ``full``."""
    out = ["Counterexample:", ""]
    n = 0
    for s in cex.steps:
        if s.kind not in ("assign", "input"):
            continue
        if s.hidden and not full:
            continue
        n += 1
        out.append(f"State {n} file {s.loc.file} line {s.loc.line} function {s.function}")
        out.append(RULE)
        binary = f" ({s.bits})" if s.bits and not isinstance(s.value, bytes) else ""
        note = "  // input" if s.kind == "input" else ""
        out.append(f"  {s.lhs}={value_text(s.value)}{binary}{note}")
        out.append("")
    out.append("Violated property:")
    out.append(f"  file {cex.loc.file} line {cex.loc.line} column {cex.loc.col} function {cex.function}")
    out.append(f"  {cex.message}")
    out.append(f"  {cex.kind}: {cex.prop_id}")
    return "\n".join(out)


def input_text(v) -> str:
    """An input value as ``tracelearn run --inputs`` reads it back."""
    if isinstance(v, (bytes, bytearray)):
        return "x:" + bytes(v).hex()
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    return str(v)


def reproduce_command(file: str, cex: Counterexample, data_model: str = "LP64", entry: str = "main",
                      units: Iterable[str] = (), include: Iterable[str] = (),
                      define: dict[str, str] | None = None) -> str:
    """A `tracelearn run` command that runs the counterexample's inputs, every one of
    them (argv and stdin reads too) in the order the model checker drew them."""
    words = ["tracelearn", "run", file, "--all-inputs"]
    for u in units:
        words += ["--unit", u]
    for d in include:
        words.append(f"-I{d}")
    for k, v in (define or {}).items():
        words.append(f"-D{k}={v}")
    if cex.input_values:
        words += ["--inputs", ",".join(input_text(v) for v in cex.input_values)]
    if data_model.upper() != "LP64":
        words += ["--data-model", data_model.upper()]
    if entry != "main":
        words += ["--entry", entry]
    return shlex.join(words)
