"""pv's benchmark programs: every file must parse and lower; each is then run by the
interpreter with random inputs to see which runs complete.

    python benchmarks/pv_programs.py [--benchmarks DIR] [--runs 20]
"""

from __future__ import annotations

import collections
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.errors import TracelearnError  # noqa: E402
from tracelearn.frontend.lower import load_program  # noqa: E402
from tracelearn.semantics.inputs import InputSource  # noqa: E402
from tracelearn.semantics.interpreter import Interpreter, InterpOptions  # noqa: E402


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--runs", type=int, default=20, help="random runs per program")
    parser.add_argument("--max-steps", type=int, default=200_000)
    args = parser.parse_args()
    rows = []
    failures = 0
    for path in sorted((root / "pv").glob("*.c")):
        t0 = time.perf_counter()
        try:
            program = load_program(str(path), "LP64")
        except TracelearnError as e:
            failures += 1
            rows.append([path.name, "no", str(e)[:60], "", "", ""])
            continue
        lower_s = time.perf_counter() - t0
        blocks = sum(len(p.blocks) for p in program.procedures.values())
        outcomes: collections.Counter = collections.Counter()
        it = Interpreter(program, InterpOptions(stdout=io.BytesIO(), stderr=io.BytesIO(), max_steps=args.max_steps))
        t1 = time.perf_counter()
        for seed in range(args.runs):
            r = it.run(InputSource([], seed=seed))
            key = r.status if r.violation is None else f"{r.violation.kind} ({r.violation.loc.line})"
            outcomes[key] += 1
        run_s = time.perf_counter() - t1
        summary = ", ".join(f"{k}: {v}" for k, v in outcomes.most_common())
        rows.append([path.name, "yes", f"{len(program.procedures)} procs, {blocks} blocks",
                     f"{lower_s:.2f}", summary, f"{run_s / args.runs * 1000:.1f}"])
    print(table(rows, ["program", "lowers", "IR", "lower s", f"outcome of {args.runs} random runs",
                       "ms/run"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
