"""SV-COMP violation witnesses, YAML format 2.0: the inputs of the counterexample as
function_return waypoints of the nondet calls, the branches it takes, then the target."""

from __future__ import annotations

import datetime
import hashlib
import json
import uuid
from pathlib import Path

from .. import __version__
from ..semantics.traces import Counterexample

# The SV-COMP property each kind of failure violates. Division by zero and bad
# shifts have none: no witness is written for them rather than a wrong one. A failed
# assert() is a call of __assert_fail (assert.h), not of reach_error: a validator that
# reads "G ! call(reach_error())" rightly rejects a witness ending at one.
SPECS = {
    "error-call": "G ! call(reach_error())",
    "assertion": "G ! call(__assert_fail())",
    "bounds": "G valid-deref",
    "pointer": "G valid-deref",
    "free": "G valid-free",
    "memleak": "G valid-memcleanup",
    "overflow": "G ! overflow",
}


def specification(cex: Counterexample) -> str | None:
    """The SV-COMP specification ``cex`` violates, or None when there is none."""
    if cex.kind == "pointer" and cex.prop_id.endswith(":free"):
        return SPECS["free"]
    return SPECS.get(cex.kind)


def call_close_paren(lines: list[str], line: int, col: int) -> tuple[int, int]:
    """Line and column of the ``)`` closing the call that starts at ``line:col``
    (where the format puts function_return waypoints); the start if not found."""
    depth, started = 0, False
    for ln in range(line, min(len(lines), line + 50) + 1):
        text = lines[ln - 1]
        start = col - 1 if ln == line else 0
        i = start
        while i < len(text):
            c = text[i]
            if c in "\"'":  # skip a literal
                j = i + 1
                while j < len(text) and text[j] != c:
                    j += 2 if text[j] == "\\" else 1
                i = j + 1
                continue
            if c == "(":
                depth, started = depth + 1, True
            elif c == ")" and started:
                depth -= 1
                if depth == 0:
                    return ln, i + 1
            i += 1
    return line, col


def _q(s: object) -> str:
    """A YAML scalar: JSON strings are valid YAML double-quoted scalars."""
    return json.dumps(s) if isinstance(s, str) else str(s)


def _header(entry_type: str, file: str, data_model: str, spec: str | None) -> list[str]:
    """The entry's first line and its metadata (format 2.0)."""
    data = Path(file).read_bytes() if Path(file).is_file() else b""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    return [
        f"- entry_type: {entry_type}",
        "  metadata:",
        '    format_version: "2.0"',
        f"    uuid: {_q(str(uuid.uuid4()))}",
        f"    creation_time: {_q(now)}",
        "    producer:",
        "      name: tracelearn",
        f"      version: {_q(__version__)}",
        "    task:",
        "      input_files:",
        f"        - {_q(file)}",
        "      input_file_hashes:",
        f"        {_q(file)}: {_q(hashlib.sha256(data).hexdigest())}",
        f"      specification: {_q(spec)}",
        f"      data_model: {data_model}",
        "      language: C",
    ]


def witness_yaml(cex: Counterexample, file: str, data_model: str, waypoints: list[tuple]) -> str:
    """``waypoints``: (type, file, line, column, function, constraint, format) in trace order.
    Only for a failure with an SV-COMP property (see :func:`specification`)."""
    if specification(cex) is None:
        raise ValueError(f"no SV-COMP property for a {cex.kind} failure")
    lines = _header("violation_sequence", file, data_model, specification(cex))
    lines.append("  content:")

    def waypoint(kind: str, f: str, line: int, col: int, fn: str, constraint: str | None, fmt: str) -> None:
        lines.extend([
            "    - segment:",
            "        - waypoint:",
            f"            type: {kind}",
            "            action: follow",
            "            location:",
            f"              file_name: {_q(f)}",
            f"              line: {line}",
            *([f"              column: {col}"] if col else []),
            f"              function: {_q(fn)}",
        ])
        if constraint is not None:
            lines.extend(["            constraint:", f"              value: {_q(constraint)}",
                          f"              format: {fmt}"])

    sources: dict[str, list[str]] = {}
    for kind, f, line, col, fn, value, fmt in waypoints:
        if kind == "function_return":
            if f not in sources:
                p = Path(f)
                sources[f] = p.read_text(encoding="latin-1").splitlines() if p.is_file() else []
            line, col = call_close_paren(sources[f], line, col)
        waypoint(kind, f, line, col, fn, value, fmt)
    waypoint("target", cex.loc.file, cex.loc.line, cex.loc.col, cex.function, None, "")
    return "\n".join(lines) + "\n"


def correctness_witness_yaml(invariants: list[tuple[str, int, int, str, str]], file: str, data_model: str,
                             spec: str = SPECS["error-call"]) -> str:
    """An SV-COMP correctness witness (YAML format 2.0, ``invariant_set``): ``invariants``
    are (file, line, column, function, C expression) of loop invariants at their loop
    heads. Empty when the proof needed none (recursion: Spacer's summaries are not loop
    invariants; a program whose loops all unwound)."""
    lines = _header("invariant_set", file, data_model, spec)
    lines.append("  content:" + ("" if invariants else " []"))
    for f, line, col, fn, value in invariants:
        lines.extend([
            "    - invariant:",
            "        type: loop_invariant",
            "        location:",
            f"          file_name: {_q(f)}",
            f"          line: {line}",
            f"          column: {col}",
            f"          function: {_q(fn)}",
            f"        value: {_q(value)}",
            "        format: c_expression",
        ])
    return "\n".join(lines) + "\n"
