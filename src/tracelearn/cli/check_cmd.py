"""`tracelearn check`: bounded model checking with a replayed counterexample."""

from __future__ import annotations

import sys
import time

from ..frontend.lower import load_program
from ..report.check_doc import check_document
from ..analyses.counterexample import CexOptions, analyze
from ..report.explain_text import explanation_text
from ..report.playback import write_playback
from ..report.sarif import sarif_document
from ..report.trace_text import counterexample_text
from ..report.witness import witness_yaml
from ..semantics.bmc import CheckOptions, check
from .outputs import preflight, write_output
from .options import add_frontend_options, parse_checks, parse_defines, parse_loop_bounds, positive, seconds
from ..report.jsonout import dumps as json_text


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
    p.add_argument("--minimize", choices=["none", "length", "values", "all"], default="none",
                   help="shortest trace and/or smallest values (Groce & Kroening Sec. 4)")
    p.add_argument("--method", choices=["optimal", "greedy"], default="optimal",
                   help="optimal: MaxSMT; greedy: CBMC's --beautify heuristic (not optimal)")
    p.add_argument("--explain", action="store_true",
                   help="nearest passing run and the predicates the error causally depends on")
    p.add_argument("--causes-inputs-only", action="store_true", help="hypothesise causes between inputs only")
    p.add_argument("--explain-timeout", type=seconds, default=120.0, help="seconds for --explain (default 120)")
    p.add_argument("--sarif", metavar="FILE", help="write SARIF 2.1.0 (a codeFlow per counterexample)")
    p.add_argument("--witness", metavar="FILE", help="write an SV-COMP violation witness (YAML, format 2.0)")
    p.add_argument("--playback", metavar="DIR", help="write a C harness that replays the counterexample with gcc")
    add_frontend_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    t0 = time.perf_counter()
    preflight(args.sarif, "--sarif", [args.file])
    preflight(args.witness, "--witness", [args.file])
    preflight(args.playback, "--playback", [args.file], directory=True)
    checks = parse_checks(args.checks)
    loop_bounds = parse_loop_bounds(args.unwind_loop)
    dm = args.data_model.upper()
    program = load_program(args.file, dm, args.include, parse_defines(args.define), entry=args.entry)
    opts = CheckOptions(bound=args.bound, timeout_s=args.timeout, checks=checks, loop_bounds=loop_bounds)
    result = check(program, opts)
    analysis = None
    if result.counterexample is not None:
        copts = CexOptions(args.minimize, args.method, args.explain, args.causes_inputs_only,
                           args.timeout, args.explain_timeout)
        analysis = analyze(result, checks, copts)
        result.counterexample = analysis.cex
    elapsed = time.perf_counter() - t0
    cex = result.counterexample
    write_outputs(args, program, result, analysis, dm)
    if args.json:
        doc = check_document(result, args.file, dm, args.entry, checks, elapsed, program.warnings)
        if analysis is not None:
            doc["minimization"] = analysis.minimize_stats.to_json() if analysis.minimize_stats else None
            doc["explanation"] = analysis.explanation.to_json() if analysis.explanation else None
        print(json_text(doc, indent=2))
    else:
        for w in program.warnings:
            print(f"warning: {w}", file=sys.stderr)
        print_text(result, args, elapsed, analysis, program)
    if cex is not None and cex.replay.get("status") != "confirmed":
        print(f"tracelearn: BUG: the counterexample does not replay in the interpreter "
              f"({cex.replay.get('interpreter')}); please report it", file=sys.stderr)
    return 0


def write_outputs(args, program, result, analysis, dm: str) -> None:
    cex = result.counterexample
    if args.sarif:
        doc = sarif_document([cex] if cex is not None else [], result.verdict)
        write_output(args.sarif, json_text(doc, indent=2), "--sarif")
    if args.witness:
        if cex is not None and analysis is not None:
            write_output(args.witness, witness_yaml(cex, args.file, dm, analysis.waypoints(result)), "--witness")
        else:
            print(f"note: no witness written to {args.witness}: the verdict is {result.verdict}; "
                  f"tracelearn writes violation witnesses only (correctness witnesses need invariants "
                  f"it does not compute yet)", file=sys.stderr)
    if args.playback and cex is not None:
        try:
            write_playback(program, cex, args.file, args.playback)
        except OSError as e:
            print(f"tracelearn: warning: --playback {args.playback}: not written ({e.strerror or e})", file=sys.stderr)


def print_text(result, args, elapsed: float, analysis=None, program=None) -> None:
    cex = result.counterexample
    if cex is not None:
        print(counterexample_text(cex, args.full_trace))
        print()
        print(f"Replayed in the interpreter: {cex.replay.get('status')} ({cex.replay.get('interpreter')})")
        ms = analysis.minimize_stats if analysis else None
        if ms is not None:
            print(f"Minimized ({cex.minimized}): length {ms.length_before} -> {ms.length_after}, "
                  f"sum of |values| {ms.sum_before} -> {ms.sum_after} "
                  f"({ms.solver_calls} solver calls, {ms.time_s:.2f}s)")
        else:
            print(f"Length {cex.length}, sum of |values| {cex.value_sum} (not minimized; see --minimize)")
        if analysis is not None and analysis.explanation is not None:
            print()
            print(explanation_text(analysis.explanation, program.source_line if program else None))
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
