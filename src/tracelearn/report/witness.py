"""SV-COMP violation witnesses, YAML format 2.0: the inputs of the counterexample as
function_return waypoints of the nondet calls, the branches it takes, then the target."""

from __future__ import annotations

import datetime
import hashlib
import json
import uuid
from pathlib import Path

from .. import __version__
from ..semantics.bmc import Counterexample

SPECS = {
    "error-call": "G ! call(reach_error())",
    "assertion": "G ! call(reach_error())",
    "bounds": "G valid-deref",
    "pointer": "G valid-deref",
    "div-by-zero": "G valid-deref",
}


def _q(s: object) -> str:
    """A YAML scalar: JSON strings are valid YAML double-quoted scalars."""
    return json.dumps(s) if isinstance(s, str) else str(s)


def witness_yaml(cex: Counterexample, file: str, data_model: str, waypoints: list[tuple]) -> str:
    """``waypoints``: (type, file, line, column, function, constraint, format) in trace order."""
    data = Path(file).read_bytes() if Path(file).is_file() else b""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    lines = [
        "- entry_type: violation_sequence",
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
        f"      specification: {_q(SPECS.get(cex.kind, 'G assert'))}",
        f"      data_model: {data_model}",
        "      language: C",
        "  content:",
    ]

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

    for kind, f, line, col, fn, value, fmt in waypoints:
        waypoint(kind, f, line, col, fn, value, fmt)
    waypoint("target", cex.loc.file, cex.loc.line, cex.loc.col, cex.function, None, "")
    return "\n".join(lines) + "\n"
