"""`tracelearn check`: bounded model checking with a replayed counterexample."""

from __future__ import annotations

import argparse
import sys

from ..api.checking import check_run, check_task, one_task
from ..api.tasks import load_tasks
from ..errors import OptionError
from ..report.explain_text import explanation_text
from ..report.jsonout import dumps as json_text
from ..report.playback import write_playback
from ..report.sarif import sarif_document
from ..report.trace_text import counterexample_text, reproduce_command
from ..report.witness import correctness_witness_yaml, specification, witness_yaml
from ..api.options import add_frontend_options, parse_checks, parse_defines, positive, seconds, split_units
from .outputs import preflight, write_output
from .progress import Progress


def add_parsers(sub) -> None:
    p = sub.add_parser("check", help="bounded model checking of assertions and runtime errors")
    p.add_argument("file", nargs="+",
                   help="C source file, or an SV-COMP task definition (.yml); more C files or a compile_commands.json "
                        "are linked with it (as --unit)")
    p.add_argument("--property", metavar="FILE.prp",
                   help="an SV-COMP property file (unreach-call, valid-memsafety, valid-memcleanup, no-overflow): "
                        "it decides the checks and the entry; with a task .yml, selects one of its properties")
    p.add_argument("--signed-overflow", choices=["undefined", "wraps"],
                   help="for an SV-COMP task: signed overflow and bad shifts are undefined behaviour that the "
                        "verdicts assume away (undefined, the default: the path ends there, a reachable one is "
                        "noted), or wrap as gcc -fwrapv (older task sets, e.g. SV-COMP 2015)")
    p.add_argument("--bound", type=positive, help="unwind loops and recursion N times (default: deepen 1, 2, 4, ...)")
    p.add_argument("--unwind-loop", action="append", metavar="[FILE:]LINE=N",
                   help="bound of the loop whose head is at LINE (repeatable)")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds before giving up (default 60)")
    p.add_argument("--prove", choices=["none", "kind", "chc", "all"],
                   help="proof strategies run beside the model checker under the same --timeout, the first "
                        "answer wins: kind = k-induction after each bound (programs with one loop, in the entry "
                        "function, over scalar variables); chc = constrained Horn clauses solved by z3's Spacer "
                        "(bit-precise; programs with heap memory, function pointers, floats or argc/argv are "
                        "refused); all = both. Default: all, or none with --bound")
    p.add_argument("--checks", metavar="LIST",
                   help="checks: assertion, error-call, bounds, pointer, div-by-zero (these five are the "
                        "default), overflow (signed), shift, memleak; 'assertions' = assertion,error-call; "
                        "'all' = every check. A switched-off assertion ends the run (as its abort would); a "
                        "switched-off runtime check that can fail is undefined behaviour: the verdict is then "
                        "unknown, never true. Without overflow/shift, arithmetic wraps (as gcc -fwrapv)")
    p.add_argument("--bug-search", action=argparse.BooleanOptionalAction, default=None,
                   help="a concolic bug search beside the model checker, in a process of its own: a bug behind a "
                        "deep recursion is found without unwinding that deep (default: on when the bound deepens "
                        "and the counterexample is neither minimized nor explained)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
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
    p.add_argument("--witness", metavar="FILE",
                   help="write an SV-COMP witness (YAML, format 2.0): a violation witness for false, a correctness "
                        "witness (the proof's loop invariants) for true; `tracelearn validate` re-checks the latter")
    p.add_argument("--playback", metavar="DIR", help="write a C harness that replays the counterexample with gcc")
    add_frontend_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    split_units(args)
    preflight(args.sarif, "--sarif", [args.file])
    preflight(args.witness, "--witness", [args.file])
    preflight(args.playback, "--playback", [args.file], directory=True)
    task = None
    if args.property or args.file.endswith((".yml", ".yaml")):
        if args.checks:
            raise OptionError("--checks and a property exclude each other (the property decides the checks)")
        task = one_task(load_tasks(args.file, args.property, args.data_model), args.file)
    elif args.signed_overflow:
        raise OptionError("--signed-overflow is the convention of an SV-COMP task (give --property or a .yml)")
    common = dict(bound=args.bound, timeout=args.timeout, unwind_loop=args.unwind_loop, minimize=args.minimize,
                  method=args.method, explain=args.explain, causes_inputs_only=args.causes_inputs_only,
                  explain_timeout=args.explain_timeout, include=args.include, define=parse_defines(args.define),
                  units=args.unit or (),
                  hard_deadline=True, prove=args.prove, bug_search=args.bug_search)
    with Progress(enabled=not args.quiet) as progress:
        if task is not None:
            run_ = check_task(task, signed_overflow=args.signed_overflow or "undefined", progress=progress.update,
                              **common)
        else:
            run_ = check_run(args.file, checks=parse_checks(args.checks), data_model=args.data_model,
                             entry=args.entry, progress=progress.update, **common)
    result, program, analysis = run_.result, run_.program, run_.analysis
    cex = result.counterexample
    dm = task.data_model if task is not None else args.data_model.upper()
    if task is not None:
        args.file, args.data_model = task.file, task.data_model  # what the outputs name
    if program is not None:
        write_outputs(args, program, result, analysis, dm)
    if args.json:
        print(json_text(run_.doc, indent=2))
    else:
        for w in run_.doc["warnings"]:
            print(f"warning: {w}", file=sys.stderr)
        print_text(result, args, run_.doc["stats"]["time_s"], analysis, program)
        if task is not None:
            t = run_.doc["task"]
            undecided = f"; not decided: {', '.join(t['undecided'])}" if t["undecided"] else ""
            print(f"SV-COMP {t['property']}: {t['result']} (expected {t['expected'] or 'unknown'}): "
                  f"{t['status']}, score {t['score']}{undecided}")
    if cex is not None and cex.replay.get("status") == "failed":
        print(f"tracelearn: BUG: the counterexample does not replay in the interpreter "
              f"({cex.replay.get('interpreter')}); please report it", file=sys.stderr)
    return 0


def write_outputs(args, program, result, analysis, dm: str) -> None:
    cex = result.counterexample
    if args.sarif:
        doc = sarif_document([cex] if cex is not None else [], result.verdict)
        write_output(args.sarif, json_text(doc, indent=2), "--sarif")
    if args.witness:
        if cex is not None and specification(cex) is None:
            print(f"note: no witness written to {args.witness}: SV-COMP has no property for a {cex.kind} "
                  f"failure", file=sys.stderr)
        elif cex is not None:  # (the bug search's counterexample carries its waypoints)
            waypoints = analysis.waypoints(result) if analysis is not None else cex.waypoints or []
            write_output(args.witness, witness_yaml(cex, args.file, dm, waypoints), "--witness")
        elif result.verdict == "true" and result.proved_by == "k-induction" and result.kinduction is not None:
            k = result.kinduction  # the invariants Houdini kept: true at every arrival at the loop head
            invs = [(program_file(k.loop), *_line_col(k.loop), k.proc, " && ".join(f"({t})" for t in k.invariants))
                    ] if k.invariants and k.sufficient else []  # else k-inductive only: no certificate
            write_output(args.witness, correctness_witness_yaml(invs, args.file, dm), "--witness")
        elif result.verdict == "true":
            invs = [(program_file(inv.loc), *_line_col(inv.loc), inv.proc, inv.witness)
                    for inv in (result.proof.invariants if result.proof is not None else [])
                    if inv.kind == "loop" and inv.witness is not None]
            write_output(args.witness, correctness_witness_yaml(invs, args.file, dm), "--witness")
        else:
            print(f"note: no witness written to {args.witness}: the verdict is {result.verdict}", file=sys.stderr)
    if args.playback and cex is not None:
        try:
            write_playback(program, cex, args.file, args.playback)
        except OSError as e:
            print(f"tracelearn: warning: --playback {args.playback}: not written ({e.strerror or e})", file=sys.stderr)


def program_file(loc: str) -> str:
    return loc.rsplit(":", 2)[0]


def _line_col(loc: str) -> tuple[int, int]:
    parts = loc.rsplit(":", 2)
    return int(parts[1]), int(parts[2])


def print_text(result, args, elapsed: float, analysis=None, program=None) -> None:
    cex = result.counterexample
    if cex is not None:
        print(counterexample_text(cex, args.full_trace))
        print()
        print(f"Replayed in the interpreter: {cex.replay.get('status')} ({cex.replay.get('interpreter')})")
        again = reproduce_command(args.file, cex, args.data_model, args.entry, args.unit or (), args.include or (),
                                  parse_defines(args.define))
        print(f"Reproduce with: {again}")
        ms = analysis.minimize_stats if analysis else None
        if ms is not None:
            print(f"Minimized ({cex.minimized}): length {ms.length_before} -> {ms.length_after}, "
                  f"sum of |values| {ms.sum_before} -> {ms.sum_after} "
                  f"({ms.solver_calls} solver calls, {ms.time_s:.2f}s)")
        elif cex.value_sum is not None:
            print(f"Length {cex.length}, sum of |values| {cex.value_sum} (not minimized; see --minimize)")
        else:  # the bug search's: no equation to minimize over
            print(f"Length {cex.length} (found by the bug search: not minimized; --minimize and --explain run "
                  "the model checker alone)")
        if analysis is not None and analysis.explanation is not None:
            print()
            print(explanation_text(analysis.explanation, program.source_line if program else None))
        print()
    for a in result.approximations:
        print(f"note: {a}")
    for a in result.assumptions:
        print(f"note: {a}")
    s = result.stats
    if result.found_by == "bug search" and result.search is not None:
        b = result.search
        print(f"Found by the concolic bug search beside the model checker: {b.samples} runs in {b.batches} "
              f"batch{'' if b.batches == 1 else 'es'}, {b.solver_calls} solver calls, {b.time_s:.3f}s")
    bound = result.bound if result.bound is not None else "-"
    print(f"Statistics: bound {bound}, {s.constraints} constraints, {s.calls} solver calls, "
          f"solver {s.time_s:.3f}s, encoding {s.encode_time_s:.3f}s, total {elapsed:.3f}s")
    verdict = result.verdict
    if verdict == "false":
        print("VERIFICATION FAILED")
    elif verdict == "true" and result.proved_by == "chc":
        pr = result.proof
        print(f"Proof: Horn clauses ({pr.clauses} clauses, {pr.predicates} predicates) solved by Spacer in "
              f"{pr.time_s:.2f}s")
        for inv in pr.invariants:
            if inv.is_c and inv.text != "1":
                print(f"  {inv.kind} invariant of {inv.proc} ({inv.loc}): {inv.text}")
        print("VERIFICATION SUCCESSFUL (proved for every path and every depth by an inductive invariant)")
    elif verdict == "true" and result.proved_by == "k-induction":
        print(f"VERIFICATION SUCCESSFUL (proved by k-induction, k = {result.bound}: no check fails within {result.bound} "
              f"loop iterations, and none after {result.bound} good ones from any state)")
    elif verdict == "true":
        print("VERIFICATION SUCCESSFUL (all paths explored: the loops and recursion are fully unwound)")
    elif verdict == "true-up-to-bound":
        loops = "".join(f", loop at line {k}: {n}" for k, n in sorted((args.unwind_loop and
                        dict(u.rsplit("=", 1) for u in args.unwind_loop) or {}).items()))
        print(f"VERIFICATION SUCCESSFUL UP TO BOUND {result.bound}{loops} (longer paths unexplored"
              f"{': ' + result.reason if result.reason else ''})")
        if result.proof is not None:
            print(f"No proof: Horn clauses {result.proof.status} ({result.proof.reason})")
    else:
        print(f"VERIFICATION UNKNOWN ({result.reason})")
