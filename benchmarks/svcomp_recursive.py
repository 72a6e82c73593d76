"""SV-COMP 2015 Recursive (24 programs, ILP32): bounded model checking verdicts.

Property unreach-call: only calls of __VERIFIER_error count (`--checks error-call`).

    python benchmarks/svcomp_recursive.py [--benchmarks DIR] [--timeout 60]
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.frontend.lower import load_program  # noqa: E402
from tracelearn.analyses.check import CheckOptions, check  # noqa: E402


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    parser.add_argument("--only", default="", help="substring of the program names to run")
    args = parser.parse_args()
    folder = root / "svcomp-recursive"
    rows = []
    counts = {"false_found": 0, "false_total": 0, "true_proved": 0, "true_bounded": 0, "true_total": 0,
              "wrong": 0, "unknown": 0}
    for r in csv.DictReader(open(folder / "verdicts.csv")):
        name, expected = r["name"], r["expected_verdict"]
        if args.only not in name:
            continue
        t0 = time.perf_counter()
        program = load_program(str(folder / f"{name}.c"), "ILP32")
        res = check(program, CheckOptions(timeout_s=args.timeout, checks=frozenset({"error-call"})))
        dt = time.perf_counter() - t0
        replay = res.counterexample.replay["status"] if res.counterexample else ""
        if expected == "false":
            counts["false_total"] += 1
            counts["false_found"] += res.verdict == "false" and replay == "confirmed"
        else:
            counts["true_total"] += 1
            counts["true_proved"] += res.verdict == "true"
            counts["true_bounded"] += res.verdict == "true-up-to-bound"
            counts["wrong"] += res.verdict == "false"
        counts["unknown"] += res.verdict == "unknown"
        rows.append([name, expected, res.verdict, res.bound if res.bound is not None else "-", f"{dt:.2f}",
                     replay or "-", res.stats.calls, (res.reason or "")[:40]])
        print(f"{name}: {res.verdict} (bound {res.bound}, {dt:.1f}s)", file=sys.stderr, flush=True)
    print(table(rows, ["program", "expected", "tracelearn", "bound", "time s", "replay", "solver calls", "note"]))
    print(f"\nfalse found with replayed counterexample: {counts['false_found']}/{counts['false_total']}; "
          f"true proved unconditionally: {counts['true_proved']}/{counts['true_total']}; "
          f"true up to the bound: {counts['true_bounded']}; wrong 'false' on true programs: {counts['wrong']}; "
          f"unknown: {counts['unknown']}")
    return 0 if counts["wrong"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
