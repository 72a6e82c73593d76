"""`tracelearn run`: interpret a program as its binary would run."""

from __future__ import annotations

import io
import json
import sys

from ..api.options import add_frontend_options, positive
from ..api.running import RunOptions, exit_status, run_document, run_program
from ..errors import OptionError


def add_parsers(sub) -> None:
    p = sub.add_parser("run", help="interpret a C program (argv, stdin and stdout are real)")
    p.add_argument("file", help="C source file")
    p.add_argument("--inputs", metavar="V,V,...", help="values of the nondeterministic inputs, in order")
    p.add_argument("--seed", type=int, default=0, help="seed of random inputs once --inputs run out (default 0)")
    p.add_argument("--max-steps", type=positive, default=None, help="stop after this many blocks")
    p.add_argument("--checks", metavar="LIST", help="runtime checks, as for `check` (default: the default set)")
    p.add_argument("--all-inputs", action="store_true",
                   help="take every input from --inputs, argc/argv and stdin reads included, in the order the "
                        "model checker draws them (what the `reproduce with:` line of a counterexample uses)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: how the run ended, the program's output, the inputs it drew")
    p.add_argument("args", nargs="*", help="program arguments (after --)")
    add_frontend_options(p)
    p.set_defaults(run=run)


def parse_inputs(text: str | None) -> list:
    """Values of ``--inputs``, in the forms the counterexample reports print:

    integers (``-5``, ``0x1f``), floats (``2.5``, ``1e300``, ``nan``, ``inf``,
    ``-inf``, C's hex floats ``0x1.8p3``), bytes of an object (``x:00ff10``: an
    uninitialised array, malloc contents, read() data) and arrays element by
    element (``{1,2,3}``)."""
    if not text:
        return []
    return [_value(p) for p in _split(text)]


def _split(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for c in text:
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += {"{": 1, "}": -1}.get(c, 0)
        cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def _value(p: str):
    if p.startswith("{") and p.endswith("}"):
        inner = p[1:-1].strip()
        return [_value(x) for x in _split(inner)] if inner else []
    if p.startswith("x:"):
        try:
            return bytes.fromhex(p[2:])
        except ValueError:
            raise OptionError(f"bad bytes '{p}' in --inputs (x: then hex digits, two per byte)") from None
    try:
        return int(p, 0)
    except ValueError:
        pass
    for conv in (float, float.fromhex):
        try:
            return conv(p)
        except ValueError:
            pass
    raise OptionError(f"bad input value '{p}' in --inputs (an integer, a float, nan, inf, x:HEX or {{a,b,...}})")


def run(args) -> int:
    opts = RunOptions(parse_inputs(args.inputs), args.seed, args.max_steps, args.checks, args.all_inputs,
                      list(args.args), args.data_model, args.include or [], args.define or [], args.entry,
                      args.unit or [])
    if args.json:  # the program's output goes into the document
        out, err = io.BytesIO(), io.BytesIO()
        r, unmodelled, warnings = run_program(args.file, opts, out, err, sys.stdin.buffer)
        doc = run_document(args.file, r, unmodelled, warnings, out.getvalue(), err.getvalue())
        print(json.dumps(doc, indent=1))
        return exit_status(r)
    def loaded(warnings: list[str]) -> None:
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()

    r, unmodelled, _ = run_program(args.file, opts, sys.stdout.buffer, sys.stderr.buffer, sys.stdin.buffer, loaded)
    sys.stdout.flush()
    if unmodelled:
        # the program's own output may depend on these made-up results: say so
        names = ", ".join(f"{n} ({k}x)" for n, k in unmodelled.items())
        print(f"tracelearn run: note: called functions with no body or model, whose results were "
              f"inputs (--inputs, then random): {names}", file=sys.stderr)
    if r.status == "violation" and r.violation is not None:
        v = r.violation
        print(f"tracelearn run: {v.loc}: {v.kind} failed: {v.message}", file=sys.stderr)
    elif r.status == "limit":
        print(f"tracelearn run: stopped: {r.note}", file=sys.stderr)
    elif r.status == "infeasible":
        print(f"tracelearn run: the run was blocked: {r.note}", file=sys.stderr)
    elif r.note == "abort":
        print("tracelearn run: the program called abort()", file=sys.stderr)
    return exit_status(r)
