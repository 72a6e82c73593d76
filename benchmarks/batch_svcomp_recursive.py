"""`tracelearn batch` on the SV-COMP'15 Recursive tasks: a local pool of N processes
and a local Dask cluster of N workers, same tasks, same limits; the two must give the
same answers. Prints each batch's table summary and wall time.

    python benchmarks/batch_svcomp_recursive.py [--benchmarks DIR] [--jobs 2] [--timeout 60]

The programs are read from ../shared/benchmarks/svcomp-recursive (restore.sh); task
definitions (.yml, SV-COMP format 2.0, expected verdicts from verdicts.csv) and the
unreach-call property file are written to a temporary folder beside the results.
Signed overflow wraps (`--signed-overflow wraps`): the 2015 verdicts are stated so.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

UNREACH = "CHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )\n"


def write_tasks(folder: Path, out: Path) -> list[Path]:
    (out / "properties").mkdir(parents=True)
    (out / "properties" / "unreach-call.prp").write_text(UNREACH)
    (out / "tasks").mkdir()
    tasks = []
    for r in csv.DictReader(open(folder / "verdicts.csv")):
        y = out / "tasks" / f"{r['name']}.yml"
        y.write_text(f"format_version: '2.0'\ninput_files: '{(folder / (r['name'] + '.c')).resolve()}'\n"
                     f"properties:\n  - property_file: ../properties/unreach-call.prp\n"
                     f"    expected_verdict: {r['expected_verdict']}\noptions:\n  language: C\n  data_model: ILP32\n")
        tasks.append(y)
    return tasks


def batch(tasks: list[Path], out: Path, extra: list[str], timeout: float) -> tuple[dict, float]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "batch", *map(str, tasks), "--out", str(out),
                        "--timeout", str(timeout), "--json", "--quiet", "--signed-overflow", "wraps", *extra], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"batch failed: {p.stderr.strip()}")
    return json.loads(p.stdout), time.perf_counter() - t0


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--jobs", type=int, default=2, help="local processes and Dask workers (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per task (default 60)")
    args = parser.parse_args()
    try:
        from distributed import LocalCluster
    except ImportError:
        print("Dask distributed is needed: pip install 'tracelearn[batch]'", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        tasks = write_tasks(root / "svcomp-recursive", Path(tmp))
        local, t_local = batch(tasks, Path(tmp) / "local", ["--jobs", str(args.jobs)], args.timeout)
        with LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            dask, t_dask = batch(tasks, Path(tmp) / "dask", ["--scheduler", cluster.scheduler_address], args.timeout)
    answers = lambda doc: {r["task"]: r["answer"] for r in doc["runs"]}  # noqa: E731
    same = answers(local) == answers(dask)
    rows = []
    for name, doc, wall in (("local pool", local, t_local), ("Dask cluster", dask, t_dask)):
        s = doc["summary"]
        rows.append([f"{name} ({args.jobs})", s["runs"], s["correct_true"], s["correct_false"],
                     s["wrong_true"] + s["wrong_false"], s["unknown"], s["score"], f"{s['cpu_s']:.1f}", f"{wall:.1f}"])
    print(table(rows, ["batch", "runs", "correct true", "correct false", "wrong", "unknown", "score", "cpu s",
                       "wall s"]))
    print(f"\nsame answers on every task: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
