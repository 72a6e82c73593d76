"""`tracelearn batch`: many SV-COMP runs in parallel, resumable, with result tables."""

from __future__ import annotations

import sys
from pathlib import Path

from ..api.batches import BatchOptions, collect_tasks, run_batch, write_tables
from ..api.options import positive, seconds
from ..report.batch_report import batch_text
from ..report.jsonout import dumps as json_text
from .progress import Progress


def add_parsers(sub) -> None:
    p = sub.add_parser("batch", help="run many SV-COMP tasks in parallel (resumable; CSV, JSON and HTML tables)")
    p.add_argument("tasks", nargs="+", metavar="TASK",
                   help="task definitions (.yml), C files (with --property) or folders of .yml tasks")
    p.add_argument("--property", metavar="FILE.prp", help="check this property (default: each one a task lists "
                                                          "that tracelearn supports)")
    p.add_argument("--jobs", type=positive, default=1, help="runs at once on this machine (default 1)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask distributed scheduler (e.g. tcp://host:8786) instead of local processes")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds per run (default 60)")
    p.add_argument("--memory", type=positive, default=4096, metavar="MB", help="memory per run (default 4096 MB)")
    p.add_argument("--bound", type=positive, help="unwinding bound of every run (default: deepen)")
    p.add_argument("--prove", choices=["none", "kind", "chc", "all"], help="check's --prove for every run")
    p.add_argument("--signed-overflow", choices=["undefined", "wraps"],
                   help="check's --signed-overflow for every run (default undefined, today's SV-COMP)")
    p.add_argument("--witnesses", action="store_true",
                   help="write each run's SV-COMP witness to OUT/witnesses and re-check it with `tracelearn "
                        "validate` (same limits); the table's validation column")
    p.add_argument("--data-model", default="ILP32", choices=["ILP32", "LP64", "ilp32", "lp64"],
                   help="for C files and tasks that do not say (default ILP32, as SV-COMP)")
    p.add_argument("--out", default="tracelearn-batch", metavar="DIR",
                   help="results.jsonl (written as runs end; a rerun skips them), results.csv/.json/.html, "
                        "runs/ (each run's document); default ./tracelearn-batch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    p.set_defaults(run=run)


def run(args) -> int:
    tasks = collect_tasks(args.tasks, args.property, args.data_model)
    with Progress(enabled=not args.quiet) as progress:
        opts = BatchOptions(args.timeout, args.memory, args.jobs, args.scheduler, args.out, args.bound,
                            progress.update, args.prove, args.witnesses, args.signed_overflow)
        result = run_batch(tasks, opts)
    out = Path(args.out)
    doc = result.to_json()
    doc["warnings"] = write_tables(result, out)
    for w in doc["warnings"]:
        print(f"tracelearn: warning: --out {w}", file=sys.stderr)
    if args.json:
        print(json_text(doc, indent=2))
    else:
        if result.skipped:
            print(f"{result.skipped} runs finished earlier (in {out / 'results.jsonl'}) were not run again",
                  file=sys.stderr)
        print(batch_text(result.rows, result.summary))
    return 0
