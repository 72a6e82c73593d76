"""`tracelearn validate WITNESS FILE`: re-check an SV-COMP correctness witness."""

from __future__ import annotations

import sys

from ..api.validation import validate
from ..report.jsonout import dumps as json_text
from ..api.options import seconds
from .progress import Progress


def add_parsers(sub) -> None:
    p = sub.add_parser("validate", help="re-check an SV-COMP correctness witness (YAML 2.0 loop invariants)")
    p.add_argument("witness", help="the witness (.yml)")
    p.add_argument("file", help="the C program it is for")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds before giving up (default 60)")
    p.add_argument("--data-model", choices=["ILP32", "LP64", "ilp32", "lp64"],
                   help="default: the witness's, else ILP32")
    p.add_argument("--signed-overflow", choices=["undefined", "wraps"], default="undefined",
                   help="SV-COMP's convention, as check takes it for a task: signed overflow assumed not to happen "
                        "(default) or wrapping (older task sets)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    p.set_defaults(run=run)


def run(args) -> int:
    with Progress(enabled=not args.quiet) as progress:
        progress.update("checking the program cut at the witness's invariants")
        doc = validate(args.witness, args.file, timeout=args.timeout, data_model=args.data_model,
                       signed_overflow=args.signed_overflow)
    if args.json:
        print(json_text(doc, indent=2))
        return 0
    for w in doc["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    for inv in doc["invariants"]:
        print(f"loop invariant at line {inv['line']}: {inv['value']}")
    for s in doc.get("not_checked", []):
        print(f"note: {s}")
    print(f"WITNESS {doc['result'].upper()} ({doc['reason']})")
    return 0
