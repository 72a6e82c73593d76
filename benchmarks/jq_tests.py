"""jq's own test suite run by `tracelearn run` and by gcc's jq (issue: real programs).

jq at a restored commit (`bash benchmarks/jq/restore.sh`) is built with gcc from
the same compile_commands.json tracelearn reads. Each case of its tests/jq.test
(program, input, expected outputs) runs alone through jq's test runner, `jq
--run-tests < case`, in both: the case agrees when stdout, stderr and the exit
status are the same. A case tracelearn cannot run (an unsupported construct, a
library function it has no model for, whose results it made up, the time limit) is
counted apart, with the reason. Table: cases,
same, different, unsupported, and the time per case of each.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from common import benchmarks_dir, table

from tracelearn.frontend.units import compilation_database


@dataclass
class Outcome:
    out: bytes
    err: bytes
    status: int | None  # None: did not finish in time
    seconds: float


def cases(test_file: Path) -> list[tuple[int, str]]:
    """(line, text) of each case: a group of lines up to a blank line, as
    jq_test.c reads them (comments and blank lines between cases are skipped)."""
    out, cur, start = [], [], 0
    for i, line in enumerate(test_file.read_text(errors="surrogateescape").split("\n"), 1):
        if not cur and (not line.strip() or line.startswith("#")):
            continue
        if cur and not line.strip():
            out.append((start, "\n".join(cur) + "\n"))
            cur = []
            continue
        if not cur:
            start = i
        cur.append(line)
    if cur:
        out.append((start, "\n".join(cur) + "\n"))
    return out


def build(tree: Path, into: Path) -> Path:
    exe = into / "jq"
    args = ["gcc", "-O0", "-w", "-o", str(exe)]
    for u in compilation_database(str(tree / "compile_commands.json")):
        args += [f"-I{d}" for d in u.include_dirs] + [f"-D{k}={v}" for k, v in u.defines.items()]
        break  # every unit of jq has the same flags
    args += [u.file for u in compilation_database(str(tree / "compile_commands.json"))] + ["-lm"]
    subprocess.run(args, check=True, cwd=tree)
    return exe


def run(cmd: list[str], case: str, timeout: float) -> Outcome:
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, input=case.encode(errors="surrogateescape"), capture_output=True, timeout=timeout)
        return Outcome(p.stdout, p.stderr, p.returncode, time.perf_counter() - t0)
    except subprocess.TimeoutExpired as e:
        return Outcome(e.stdout or b"", e.stderr or b"", None, time.perf_counter() - t0)


def tracelearn_reason(o: Outcome) -> str | None:
    """Why tracelearn could not run the case (None: it ran it)."""
    if o.status is None:
        return "time limit"
    for line in o.err.decode(errors="replace").splitlines():
        if line.startswith(("tracelearn: error", "tracelearn: internal error", "tracelearn run: stopped")):
            return line
        if line.startswith("tracelearn run: note: called functions with no body"):
            return "no model for " + line.rsplit(": ", 1)[-1]  # its results were made up
    return None


def main(argv: list[str] | None = None) -> int:
    root, p = benchmarks_dir(argv, __doc__)
    p.add_argument("--tree", default="bug817", help="which restored jq (default bug817)")
    p.add_argument("--cases", type=int, help="only the first N cases")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per case for tracelearn (default 600)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases run at once (default: CPUs)")
    p.add_argument("--show", type=int, default=10, help="differences to print (default 10)")
    args = p.parse_args(argv)
    tree = root / "jq" / args.tree
    if not (tree / "compile_commands.json").exists():
        print(f"no jq sources at {tree}: run `bash benchmarks/jq/restore.sh` first", file=sys.stderr)
        return 1
    if shutil.which("gcc") is None:
        print("needs gcc", file=sys.stderr)
        return 1
    todo = cases(tree / "tests" / "jq.test")[: args.cases]
    db = str(tree / "compile_commands.json")
    tl = [sys.executable, "-m", "tracelearn.cli.main", "run", db, "--", "--run-tests"]
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tree, Path(tmp))
        gcc = [run([str(exe), "--run-tests"], c, 60.0) for _, c in todo]
        done = 0

        def ours(case: str) -> Outcome:
            nonlocal done
            o = run(tl, case, args.timeout)
            done += 1
            if sys.stderr.isatty():
                print(f"\r{done}/{len(todo)} cases", end="", file=sys.stderr, flush=True)
            return o

        with ThreadPoolExecutor(args.jobs) as pool:
            mine = list(pool.map(ours, [c for _, c in todo]))
        if sys.stderr.isatty():
            print(file=sys.stderr)
    same, different, unsupported = [], [], []
    for (line, case), g, t in zip(todo, gcc, mine):
        reason = tracelearn_reason(t)
        if reason is not None:
            unsupported.append((line, reason))
        elif (g.out, g.status) == (t.out, t.status) and g.err == _without_warnings(t.err):
            same.append(line)
        else:
            different.append((line, case, g, t))
    rows = [[args.tree, len(todo), len(same), len(different), len(unsupported),
             f"{sum(o.seconds for o in gcc) / max(1, len(todo)):.3f}",
             f"{sum(o.seconds for o in mine) / max(1, len(todo)):.1f}"]]
    print(table(rows, ["jq", "cases", "same", "different", "unsupported", "gcc s/case", "tracelearn s/case"]))
    for line, case, g, t in different[: args.show]:
        print(f"\ntests/jq.test:{line}: {case.splitlines()[0]!r}\n  gcc:        status {g.status}, "
              f"{g.out.decode(errors='replace')!r}\n  tracelearn: status {t.status}, {t.out.decode(errors='replace')!r}"
              f" {_without_warnings(t.err).decode(errors='replace')[-300:]!r}")
    for line, reason in unsupported[: args.show]:
        print(f"tests/jq.test:{line}: unsupported: {reason}")
    return 0


def _without_warnings(err: bytes) -> bytes:
    """tracelearn's own `warning:` lines (functions without a model) are not jq's."""
    return b"".join(l for l in err.splitlines(keepends=True) if not l.startswith(b"warning: "))


if __name__ == "__main__":
    sys.exit(main())
