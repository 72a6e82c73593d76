"""SV-COMP 2015 Recursive (24 programs, ILP32): `check` verdicts, per strategy.

Property unreach-call: only calls of __VERIFIER_error count (`--checks error-call`).
Signed overflow wraps (gcc -fwrapv): the 2015 verdicts are stated so (Addition03's bug
needs m + n to wrap; later SV-COMP versions rewrote such tasks). `--undefined` takes
today's convention instead, as `check --property` does: signed overflow and bad shifts
are undefined behaviour the verdicts assume away (a path ends at one).
`--prove none` is the bounded model checker alone (a `true` only by complete
unwinding), `--prove chc` the portfolio with the Horn-clause proof; the table has a
column for each strategy given. The concolic bug search runs beside the model checker
(`check`'s default) unless `--no-bug-search`: a bug it finds has no bound (`-`).

    python benchmarks/svcomp_recursive.py [--benchmarks DIR] [--timeout 60] [--prove none,chc] [--no-bug-search]
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.api.checking import SVCOMP_UNDEFINED, check_run  # noqa: E402


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    parser.add_argument("--only", default="", help="substring of the program names to run")
    parser.add_argument("--prove", default="none,chc", help="strategies, comma-separated (none = BMC alone)")
    parser.add_argument("--no-bug-search", action="store_true", help="the model checker without the bug search")
    parser.add_argument("--undefined", action="store_true",
                        help="signed overflow and shifts assumed absent (today's SV-COMP), not wrapping")
    args = parser.parse_args()
    strategies = args.prove.split(",")
    all_counts = {}
    for prove in strategies:
        all_counts[prove] = run_strategy(folder_of(root), args, prove)
    if len(strategies) > 1:
        rows = [[p, f"{c['false_found']}/{c['false_total']}", f"{c['true_proved']}/{c['true_total']}",
                 c["true_bounded"], c["wrong"], c["unknown"]] for p, c in all_counts.items()]
        print()
        print(table(rows, ["--prove", "bugs found", "safe proved", "true up to bound", "wrong", "unknown"]))
    return 0 if all(c["wrong"] == 0 for c in all_counts.values()) else 1


def folder_of(root: Path) -> Path:
    return root / "svcomp-recursive"


def run_strategy(folder: Path, args, prove: str) -> dict:
    rows = []
    counts = {"false_found": 0, "false_total": 0, "true_proved": 0, "true_bounded": 0, "true_total": 0,
              "wrong": 0, "unknown": 0, "true_on_false": 0}
    for r in csv.DictReader(open(folder / "verdicts.csv")):
        name, expected = r["name"], r["expected_verdict"]
        if args.only not in name:
            continue
        t0 = time.perf_counter()
        res = check_run(str(folder / f"{name}.c"), timeout=args.timeout, checks=["error-call"], prove=prove,
                        data_model="ILP32", assumed=SVCOMP_UNDEFINED if args.undefined else (),
                        bug_search=False if args.no_bug_search else None).result
        dt = time.perf_counter() - t0
        replay = res.counterexample.replay["status"] if res.counterexample else ""
        if expected == "false":
            counts["false_total"] += 1
            counts["false_found"] += res.verdict == "false" and replay == "confirmed"
            counts["true_on_false"] += res.verdict == "true"
            counts["wrong"] += res.verdict == "true" and not args.undefined
        else:
            counts["true_total"] += 1
            counts["true_proved"] += res.verdict == "true"
            counts["true_bounded"] += res.verdict == "true-up-to-bound"
            counts["wrong"] += res.verdict == "false"
        counts["unknown"] += res.verdict == "unknown"
        proof = res.proof.status if res.proof is not None else "-"
        horn = res.proof.solver if res.proof is not None and res.proof.status == "proved" else "-"
        rows.append([name, expected, res.verdict, res.proved_by or res.found_by or "-",
                     res.bound if res.bound is not None else "-",
                     f"{dt:.2f}", replay or "-", res.stats.calls, proof, horn, (res.reason or "")[:40]])
        print(f"{name}: {res.verdict} (bound {res.bound}, {dt:.1f}s)", file=sys.stderr, flush=True)
    print(f"\n--prove {prove}, {args.timeout:g} s per program, "
          f"{'signed overflow and shifts undefined' if args.undefined else 'signed overflow wraps'}")
    print(table(rows, ["program", "expected", "tracelearn", "proved / found by", "bound", "time s", "replay",
                       "solver calls", "Horn clauses", "Horn solver", "note"]))
    print(f"\nfalse found with replayed counterexample: {counts['false_found']}/{counts['false_total']}; "
          f"true proved unconditionally: {counts['true_proved']}/{counts['true_total']}; "
          f"true up to the bound: {counts['true_bounded']}; wrong: {counts['wrong']}; "
          f"'true' on programs expected false: {counts['true_on_false']}"
          f"{' (a bug only if signed overflow wraps: right under this convention)' if args.undefined else ''}; "
          f"unknown: {counts['unknown']}")
    return counts


if __name__ == "__main__":
    sys.exit(main())
