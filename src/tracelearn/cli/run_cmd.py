"""`tracelearn run`: interpret a program as its binary would run."""

from __future__ import annotations

import sys

from ..errors import OptionError
from ..frontend.lower import load_program
from ..semantics.inputs import InputSource
from ..semantics.interpreter import Interpreter, InterpOptions
from .options import add_frontend_options, parse_defines


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="interpret a C program (argv, stdin and stdout are real)")
    p.add_argument("file", help="C source file")
    p.add_argument("--inputs", metavar="V,V,...", help="values of the nondeterministic inputs, in order")
    p.add_argument("--seed", type=int, default=0, help="seed of random inputs once --inputs run out (default 0)")
    p.add_argument("--max-steps", type=int, default=None, help="stop after this many blocks")
    p.add_argument("args", nargs="*", help="program arguments (after --)")
    add_frontend_options(p)
    p.set_defaults(run=run)


def parse_inputs(text: str | None) -> list:
    if not text:
        return []
    out: list = []
    for part in text.split(","):
        p = part.strip()
        try:
            out.append(int(p, 0))
        except ValueError:
            try:
                out.append(float(p))
            except ValueError:
                raise OptionError(f"bad input value '{p}' in --inputs") from None
    return out


def run(args) -> int:
    program = load_program(args.file, args.data_model.upper(), args.include, parse_defines(args.define),
                           entry=args.entry)
    for w in program.warnings:
        print(f"warning: {w}", file=sys.stderr)
    sys.stdout.flush()
    opts = InterpOptions(real_io=True, stdout=sys.stdout.buffer, stderr=sys.stderr.buffer,
                         stdin=sys.stdin.buffer, max_steps=args.max_steps)
    it = Interpreter(program, opts)
    r = it.run(InputSource(parse_inputs(args.inputs), seed=args.seed), argv=list(args.args))
    sys.stdout.flush()
    if r.status == "violation" and r.violation is not None:
        v = r.violation
        print(f"tracelearn run: {v.loc}: {v.kind} failed: {v.message}", file=sys.stderr)
        return 134
    if r.status == "limit":
        print(f"tracelearn run: stopped: {r.note}", file=sys.stderr)
        return 124
    if r.status == "infeasible":
        print(f"tracelearn run: the run was blocked: {r.note}", file=sys.stderr)
        return 0
    if r.note == "abort":
        print("tracelearn run: the program called abort()", file=sys.stderr)
        return 134
    return r.exit_code or 0
