"""The development set: SV-Benchmarks unreach-call tasks from c/loop-lit, c/loop-simple,
c/loop-zilu, c/loop-new, c/nla-digbench, c/recursive and c/bitvector-loops, listed in
`benchmarks/sv_dev_tasks.csv` (repository, commit, paths, expected verdict); the files
themselves live outside the project, in ../shared/benchmarks/sv-dev/<folder>/ (taken one
by one from sosy-lab/sv-benchmarks at the listed commit; see the README there).

Runs `tracelearn batch` once per `--prove` strategy (each task its own process with
the time limit) and prints, per folder and in all, the SV-COMP outcome per strategy.

    python benchmarks/sv_dev.py [--benchmarks DIR] [--timeout 30] [--prove none,chc] [--jobs 1]
        [--only FOLDER] [--out DIR] [--check]
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.api.batch import BatchOptions, collect_tasks, run_batch  # noqa: E402

LIST = Path(__file__).parent / "sv_dev_tasks.csv"


def tasks_of(root: Path, only: str) -> tuple[list[Path], list[str]]:
    """The task files present, and the listed ones that are missing."""
    present, missing = [], []
    for r in csv.DictReader(open(LIST)):
        rel = Path(r["path_yml"])
        folder = rel.parent.name
        if only and only != folder:
            continue
        p = root / "sv-dev" / folder / rel.name
        inp = root / "sv-dev" / folder / Path(r["path_input"]).name
        (present if p.is_file() and inp.is_file() else missing).append(p if p.is_file() else str(rel))
    return present, missing


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per task")
    parser.add_argument("--prove", default="none,chc", help="strategies, comma-separated")
    parser.add_argument("--jobs", type=int, default=1, help="tasks at once (a proof uses a second thread)")
    parser.add_argument("--only", default="", help="one folder, e.g. loop-lit")
    parser.add_argument("--out", default="/tmp/tracelearn-sv-dev", help="batch output folders go here")
    parser.add_argument("--check", action="store_true", help="only check that the listed files are in place")
    args = parser.parse_args()
    present, missing = tasks_of(root, args.only)
    print(f"{len(present)} tasks in place, {len(missing)} missing", file=sys.stderr)
    for m in missing[:10]:
        print(f"  missing: {m}", file=sys.stderr)
    if args.check or not present:
        return 0 if not missing else 1
    tasks = collect_tasks([str(p) for p in present], None, "ILP32")
    summary: dict[str, dict[str, dict[str, int]]] = {}
    for prove in args.prove.split(","):
        res = run_batch(tasks, BatchOptions(args.timeout, 4096, args.jobs, None, f"{args.out}/{prove}", None,
                                            lambda line: print(line, file=sys.stderr, flush=True), prove))
        per: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for r in res.rows:
            folder = Path(r.file).parent.name
            for key in (folder, "all"):
                c = per[key]
                c["tasks"] += 1
                c["expected true"] += r.expected == "true"
                c["correct true"] += r.status == "correct" and r.answer == "true"
                c["correct false"] += r.status == "correct" and r.answer.startswith("false")
                c["wrong"] += r.status == "wrong"
                c["unknown"] += r.status == "unknown"
                c["score"] += r.score
                c["proved by chc"] += r.proved_by == "chc"
                c["cpu s"] += r.cpu_s
        summary[prove] = per
    folders = sorted({f for per in summary.values() for f in per if f != "all"}) + ["all"]
    cols = ["tasks", "expected true", "correct true", "correct false", "wrong", "unknown", "score", "proved by chc"]
    for prove, per in summary.items():
        print(f"\n--prove {prove}, {args.timeout:g} s per task")
        print(table([[f] + [per[f][c] for c in cols] + [round(per[f]["cpu s"], 1)] for f in folders],
                    ["folder"] + cols + ["cpu s"]))
    return 0 if all(per["all"]["wrong"] == 0 for per in summary.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
