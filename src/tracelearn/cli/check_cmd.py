"""`tracelearn check`: bounded model checking with a replayed counterexample."""

from __future__ import annotations

import json
import sys
import time

from ..frontend.lower import load_program
from ..report.check_doc import check_document
from ..report.trace_text import counterexample_text
from ..semantics.bmc import CheckOptions, check
from .options import add_frontend_options, parse_checks, parse_defines, parse_loop_bounds, positive, seconds


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="bounded model checking of assertions and runtime errors")
    p.add_argument("file", help="C source file")
    p.add_argument("--bound", type=positive, help="unwind loops and recursion N times (default: deepen 1, 2, 4, ...)")
    p.add_argument("--unwind-loop", action="append", metavar="[FILE:]LINE=N",
                   help="bound of the loop whose head is at LINE (repeatable)")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds before giving up (default 60)")
    p.add_argument("--checks", metavar="LIST",
                   help="properties: assertion,error-call,bounds,pointer,div-by-zero, 'assertions' or 'all' (default all)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--full-trace", action="store_true", help="show internal steps of the counterexample")
    add_frontend_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    t0 = time.perf_counter()
    checks = parse_checks(args.checks)
    loop_bounds = parse_loop_bounds(args.unwind_loop)
    dm = args.data_model.upper()
    program = load_program(args.file, dm, args.include, parse_defines(args.define), entry=args.entry)
    opts = CheckOptions(bound=args.bound, timeout_s=args.timeout, checks=checks, loop_bounds=loop_bounds)
    result = check(program, opts)
    elapsed = time.perf_counter() - t0
    cex = result.counterexample
    if args.json:
        doc = check_document(result, args.file, dm, args.entry, checks, elapsed, program.warnings)
        print(json.dumps(doc, indent=2))
    else:
        for w in program.warnings:
            print(f"warning: {w}", file=sys.stderr)
        print_text(result, args, elapsed)
    if cex is not None and cex.replay.get("status") != "confirmed":
        print(f"tracelearn: BUG: the counterexample does not replay in the interpreter "
              f"({cex.replay.get('interpreter')}); please report it", file=sys.stderr)
    return 0


def print_text(result, args, elapsed: float) -> None:
    cex = result.counterexample
    if cex is not None:
        print(counterexample_text(cex, args.full_trace))
        print()
        print(f"Replayed in the interpreter: {cex.replay.get('status')} ({cex.replay.get('interpreter')})")
        print()
    for a in result.approximations:
        print(f"note: {a}")
    s = result.stats
    print(f"Statistics: bound {result.bound}, {s.constraints} constraints, {s.calls} solver calls, "
          f"solver {s.time_s:.3f}s, encoding {s.encode_time_s:.3f}s, total {elapsed:.3f}s")
    verdict = result.verdict
    if verdict == "false":
        print("VERIFICATION FAILED")
    elif verdict == "true":
        print("VERIFICATION SUCCESSFUL (all paths explored: the loops and recursion are fully unwound)")
    elif verdict == "true-up-to-bound":
        print(f"VERIFICATION SUCCESSFUL UP TO BOUND {result.bound} (longer paths unexplored"
              f"{': ' + result.reason if result.reason else ''})")
    else:
        print(f"VERIFICATION UNKNOWN ({result.reason})")
