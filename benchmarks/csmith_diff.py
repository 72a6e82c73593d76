"""Differential testing against gcc with csmith-generated programs.

For each seed, csmith generates a program; gcc compiles and runs it (with a
timeout); tracelearn's interpreter runs it (with a step limit); the printed
outputs (`checksum = %X`) must be byte-for-byte equal. Each seed is classified:

    agree         same output
    differ        different output (a bug)
    crash         tracelearn raised a non-user-facing Python exception (a bug)
    interp-error  the interpreter reported a violation gcc's run did not show (a bug, or UB)
    ub            different output, and gcc's UBSan build (-fsanitize=undefined,float-cast-overflow)
                  reports undefined behaviour (csmith --float can convert out-of-range floats to integers)
    nondet-extern different output, but the program calls functions with neither a body nor a library
                  model (e.g. GCC builtins with csmith --builtins): tracelearn treats their results as
                  nondeterministic inputs by design, so this is a known limitation, not counted as a bug
    unsupported   TracelearnError/UnsupportedError (counted per message)
    interp-limit  the interpreter's step limit (--max-steps) was hit
    timeout       the per-seed wall clock (--seed-timeout) was hit
    gcc-timeout   gcc's binary did not finish within --gcc-timeout (skipped)
    gen-error     csmith or gcc failed to produce a program (skipped)

With --bmc, every program the interpreter agrees on is also checked with the
bounded model checker: the `checksum = %X` printf step must be reachable, its
printed value must equal gcc's and be the only possible value, and no
unwinding-bound step may be reachable (otherwise the bound is deepened up to
--max-bound, then `bmc-bound-too-small`). Outcomes: bmc-agree, bmc-differ (a
bug), bmc-crash (a bug), bmc-timeout (SymexLimit, solver unknown or wall clock),
bmc-unsupported (paths cut by unsupported constructs), bmc-bound-too-small.

Each seed runs in a child process (with a wall-clock and memory limit), --jobs
at a time. The programs of every bug, with a `.txt` note, go to --out.

Default csmith options (small programs, so that the model checker can handle
them too; ~100-300 lines, csmith.h's 256-iteration CRC table loop is why the
default bound is 300):

    --max-funcs 3 --max-block-depth 2 --max-expr-complexity 4 --max-array-dim 2
    --max-array-len-per-dim 4 --max-struct-fields 4 --no-volatiles

These run in ~0.7 s per program without --bmc; the model checker's time is printed. For the
interpreter alone, larger programs find more: `--csmith-args ""` (csmith's own
defaults) or `--csmith-args "--float --inline-function"` (floats, type-punning
unions of packed structs). `--builtins` makes gcc builtins appear, which land in
nondet-extern; `--random-random` makes csmith loop at times (gen-error after 20 s).

    python benchmarks/csmith_diff.py [--count 300] [--seed-start 1] [--jobs 2] [--bmc]
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import table  # noqa: E402

CSMITH_INCLUDE = "/usr/include/csmith"
DEFAULT_CSMITH_ARGS = ("--max-funcs 3 --max-block-depth 2 --max-expr-complexity 4 --max-array-dim 2 "
                       "--max-array-len-per-dim 4 --max-struct-fields 4 --no-volatiles")
BUGS = ("differ", "crash", "interp-error", "bmc-differ", "bmc-crash")
ORDER = ("agree", "differ", "crash", "interp-error", "ub", "nondet-extern", "unsupported", "interp-limit",
         "timeout", "gcc-timeout", "gen-error")
BMC_ORDER = ("bmc-agree", "bmc-differ", "bmc-crash", "bmc-timeout", "bmc-unsupported", "bmc-bound-too-small")


def short_tb(limit: int = 6) -> str:
    lines = traceback.format_exc().rstrip().splitlines()
    return "\n".join(lines[-limit:])


def construct(message: str) -> str:
    """The construct named by an unsupported-feature message, without names and numbers."""
    m = message.strip()
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:100]


# ---------------------------------------------------------------- one seed (child process)


def gen_and_gcc(seed: int, csmith_args: str, work: Path, gcc_timeout: float) -> dict:
    src = work / f"p{seed}.c"
    exe = work / f"p{seed}"
    try:
        r = subprocess.run(["csmith", "--seed", str(seed), *shlex.split(csmith_args), "-o", str(src)],
                           capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:  # csmith sometimes loops (e.g. with --random-random)
        return {"cls": "gen-error", "detail": "csmith: timeout"}
    if r.returncode != 0 or not src.exists():
        return {"cls": "gen-error", "detail": "csmith: " + (r.stderr or r.stdout)[-300:]}
    try:
        r = subprocess.run(["gcc", "-w", "-O0", "-fwrapv", "-I" + CSMITH_INCLUDE, str(src), "-o", str(exe)],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return {"cls": "gen-error", "detail": "gcc: timeout"}
    if r.returncode != 0:
        return {"cls": "gen-error", "detail": "gcc: " + r.stderr[-300:]}
    try:
        r = subprocess.run([str(exe)], capture_output=True, timeout=gcc_timeout)
    except subprocess.TimeoutExpired:
        return {"cls": "gcc-timeout"}
    return {"src": str(src), "gcc_out": r.stdout.decode("latin-1"), "gcc_rc": r.returncode,
            "lines": src.read_text().count("\n")}


def sanitizer_report(src: str, work: Path, timeout: float) -> str | None:
    """UBSan's first report for the program (csmith's safe math does not cover float-to-int casts)."""
    exe = work / (Path(src).stem + "_ubsan")
    r = subprocess.run(["gcc", "-w", "-O0", "-I" + CSMITH_INCLUDE, "-fsanitize=undefined,float-cast-overflow",
                        src, "-o", str(exe)], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    try:
        r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=4 * timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        exe.unlink(missing_ok=True)
    m = re.search(r"runtime error: (.*)", r.stderr)
    return f"gcc -fsanitize: {m.group(1)}" if m else None


def run_interp(program, max_steps: int) -> dict:
    from tracelearn.semantics.inputs import InputSource
    from tracelearn.semantics.interpreter import Interpreter, InterpOptions

    out = io.BytesIO()
    it = Interpreter(program, InterpOptions(stdout=out, stderr=io.BytesIO(), max_steps=max_steps))
    t0 = time.perf_counter()
    r = it.run(InputSource([]), argv=[])
    v = r.violation
    return {"status": r.status, "out": out.getvalue().decode("latin-1"), "statements": r.statements,
            "time": time.perf_counter() - t0,
            "violation": None if v is None else f"{v.kind} at {v.loc}: {v.message}"}


def run_bmc(program, gcc_out: str, bound: int, max_bound: int, timeout: float, bitwuzla: bool = True) -> dict:
    """The model checker's queries go to z3 and Bitwuzla as `tracelearn check` sends them
    (``bitwuzla`` False: z3 alone)."""
    from tracelearn.semantics.bitwuzla_backend import BitwuzlaWorker

    if not bitwuzla:
        return _run_bmc(program, gcc_out, bound, max_bound, timeout, None)
    with BitwuzlaWorker() as worker:
        return _run_bmc(program, gcc_out, bound, max_bound, timeout, worker)


def _run_bmc(program, gcc_out: str, bound: int, max_bound: int, timeout: float, worker) -> dict:
    import z3

    from tracelearn.errors import TracelearnError
    from tracelearn.ir.types import IntType
    from tracelearn.semantics.bmc import Encoding
    from tracelearn.semantics.traces import model_value
    from tracelearn.semantics.symbolic import SymexLimit

    m = re.search(r"checksum = ([0-9A-F]+)", gcc_out)
    if not m:
        return {"bmc": "bmc-crash", "bmc_detail": "no checksum in gcc's output"}
    expected = int(m.group(1), 16)
    deadline = time.perf_counter() + timeout
    res: dict = {}
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return {"bmc": "bmc-timeout", "bmc_detail": f"deadline at bound {bound}"}
        res["bound"] = bound
        try:
            enc = Encoding(program, bound=bound, timeout_s=left, deadline=deadline, bitwuzla=worker)
        except SymexLimit as e:
            return {**res, "bmc": "bmc-timeout", "bmc_detail": f"SymexLimit: {e}"}
        except TracelearnError as e:
            return {**res, "bmc": "bmc-unsupported", "bmc_detail": construct(e.message)}
        except Exception:  # noqa: BLE001
            return {**res, "bmc": "bmc-crash", "bmc_detail": short_tb()}
        try:
            unwinds = enc.eq.unwinds()
            if unwinds:
                r, _ = enc.solve(goal=z3.Or(*[u.guard for u in unwinds]))
                if r == "unknown":
                    return {**res, "bmc": "bmc-timeout", "bmc_detail": "solver unknown (unwinding)"}
                if r == "sat":
                    if bound * 2 <= max_bound:
                        bound *= 2
                        continue
                    return {**res, "bmc": "bmc-bound-too-small", "bmc_detail": f"bound {bound}"}
            if enc.eq.unsupported:
                return {**res, "bmc": "bmc-unsupported", "bmc_detail": construct(enc.eq.unsupported[0])}
            steps = [s for s in enc.eq.steps if s.kind == "output" and s.message.startswith("checksum = ")]
            if len(steps) != 1:
                return {**res, "bmc": "bmc-differ", "bmc_detail": f"{len(steps)} checksum printf steps"}
            s = steps[0]
            if not s.args:
                return {**res, "bmc": "bmc-differ", "bmc_detail": "checksum printf step has no argument"}
            u32 = IntType(32, False)
            arg = s.args[0]
            r, model = enc.solve(goal=s.guard)
            if r == "unknown":
                return {**res, "bmc": "bmc-timeout", "bmc_detail": "solver unknown (reach)"}
            if r == "unsat":
                return {**res, "bmc": "bmc-differ", "bmc_detail": "checksum printf unreachable"}
            got = model_value(model, arg, u32)
            if got != expected:
                return {**res, "bmc": "bmc-differ",
                        "bmc_detail": f"checksum {got:X} (model checker) vs {expected:X} (gcc)"}
            r, model = enc.solve(goal=z3.And(s.guard, arg != got))
            if r == "unknown":
                return {**res, "bmc": "bmc-timeout", "bmc_detail": "solver unknown (uniqueness)"}
            if r == "sat":
                other = model_value(model, arg, u32)
                return {**res, "bmc": "bmc-differ",
                        "bmc_detail": f"checksum may also be {other:X} (gcc {expected:X})"}
            return {**res, "bmc": "bmc-agree", "bmc_time": enc.stats.time_s + enc.stats.encode_time_s,
                    "bmc_encode_time": enc.stats.encode_time_s, "bmc_steps": len(enc.eq.steps),
                    "bmc_bitwuzla_calls": enc.stats.bitwuzla_calls}
        except Exception:  # noqa: BLE001
            return {**res, "bmc": "bmc-crash", "bmc_detail": short_tb()}


def one_seed(a: argparse.Namespace) -> dict:
    from tracelearn.errors import TracelearnError
    from tracelearn.frontend.lower import load_program

    work = Path(a.work)
    res: dict = {"seed": a.one}
    g = gen_and_gcc(a.one, a.csmith_args, work, a.gcc_timeout)
    res.update(g)
    if "cls" in g:
        return res
    try:
        program = load_program(g["src"], "LP64", include_dirs=[CSMITH_INCLUDE])
    except TracelearnError as e:
        return {**res, "cls": "unsupported", "detail": construct(e.message), "where": e.where}
    except Exception:  # noqa: BLE001
        return {**res, "cls": "crash", "detail": "load: " + short_tb()}
    from tracelearn.semantics.library import LIBRARY

    # functions without a body or a library model (e.g. GCC builtins with --builtins) return nondeterministic
    # values by design: a different output is then expected, not a bug
    nondet = [n for n in program.externs if n not in LIBRARY]
    if nondet:
        res["nondet_externs"] = nondet
    try:
        ir = run_interp(program, a.max_steps)
    except TracelearnError as e:
        return {**res, "cls": "unsupported", "detail": construct(e.message), "where": e.where}
    except Exception:  # noqa: BLE001
        return {**res, "cls": "crash", "detail": "interpreter: " + short_tb()}
    res.update({"interp_" + k: v for k, v in ir.items()})
    if ir["status"] == "limit":
        return {**res, "cls": "interp-limit"}
    if ir["status"] != "ok":
        return {**res, "cls": "interp-error", "detail": f"{ir['status']}: {ir['violation']}"}
    if ir["out"] != g["gcc_out"]:
        detail = f"interpreter {ir['out']!r} gcc {g['gcc_out']!r}"
        if nondet:
            return {**res, "cls": "nondet-extern", "detail": detail}
        ub = sanitizer_report(g["src"], work, a.gcc_timeout)
        if ub:
            return {**res, "cls": "ub", "detail": ub}
        return {**res, "cls": "differ", "detail": detail}
    res["cls"] = "agree"
    if a.bmc and nondet:
        res.update({"bmc": "bmc-unsupported", "bmc_detail": "functions without body: " + ", ".join(nondet)})
    elif a.bmc:
        print(json.dumps(res), flush=True)  # the parent keeps this if the model checker overruns the clock
        res.update(run_bmc(program, g["gcc_out"], a.bound, a.max_bound, a.bmc_timeout, not a.z3_only))
    return res


# ---------------------------------------------------------------- driver


def child(seed: int, a: argparse.Namespace, work: Path) -> dict:
    cmd = [sys.executable, __file__, "--one", str(seed), "--work", str(work), "--csmith-args", a.csmith_args,
           "--gcc-timeout", str(a.gcc_timeout), "--max-steps", str(a.max_steps)]
    if a.bmc:
        cmd += ["--bmc", "--bound", str(a.bound), "--max-bound", str(a.max_bound),
                "--bmc-timeout", str(a.bmc_timeout)] + (["--z3-only"] if a.z3_only else [])
    limit = a.seed_timeout + (a.bmc_timeout + 30 if a.bmc else 0)
    mem = a.mem_gb * 2**30

    def lim() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=lim,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the child and its csmith/gcc/program processes
        stdout, stderr = proc.communicate()
        partial = stdout or ""
        for line in reversed(partial.splitlines()):
            if line.startswith("{"):  # the interpreter agreed; the model checker overran
                return {**json.loads(line), "bmc": "bmc-timeout", "bmc_detail": f"wall clock {limit:.0f} s"}
        return {"seed": seed, "cls": "timeout", "detail": f"wall clock {limit:.0f} s",
                "src": str(work / f"p{seed}.c")}
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"seed": seed, "cls": "crash", "src": str(work / f"p{seed}.c"),
            "detail": f"child exit {proc.returncode}: " + "\n".join(stderr.strip().splitlines()[-6:])}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=300, help="number of seeds (default 300)")
    p.add_argument("--seed-start", type=int, default=1, help="first seed (default 1)")
    p.add_argument("--seeds", default=None, help="explicit comma-separated seeds (overrides count/start)")
    p.add_argument("--csmith-args", default=DEFAULT_CSMITH_ARGS, help="options passed to csmith")
    p.add_argument("--gcc-timeout", type=float, default=5.0, help="seconds for gcc's binary (default 5)")
    p.add_argument("--max-steps", type=int, default=20_000_000, help="interpreter step limit (default 2e7)")
    p.add_argument("--seed-timeout", type=float, default=300.0,
                   help="wall clock per seed, without the model checker (default 300 s)")
    p.add_argument("--bmc", action="store_true", help="also check the model checker on agreeing programs")
    p.add_argument("--bmc-timeout", type=float, default=120.0, help="seconds per program for the model checker")
    p.add_argument("--z3-only", action="store_true",
                   help="the model checker asks z3 alone (by default its big queries go to Bitwuzla first, "
                        "as `tracelearn check` sends them)")
    p.add_argument("--bound", type=int, default=300, help="first unwinding bound (default 300)")
    p.add_argument("--max-bound", type=int, default=1200, help="deepen the bound up to this (default 1200)")
    p.add_argument("--jobs", type=int, default=1, help="seeds in parallel (default 1)")
    p.add_argument("--mem-gb", type=int, default=6, help="address-space limit per seed (default 6 GB)")
    p.add_argument("--out", default="/tmp/csmith_work/failures", help="folder for the bug-revealing programs")
    p.add_argument("--json", default=None, help="also write all per-seed results to this file")
    p.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--work", default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    missing = [tool for tool in ("csmith", "gcc") if shutil.which(tool) is None]
    if not Path(CSMITH_INCLUDE, "csmith.h").exists():
        missing.append(f"{CSMITH_INCLUDE}/csmith.h")
    if missing:
        print(f"csmith_diff: {', '.join(missing)} not found (Debian: apt-get install csmith libcsmith-dev gcc)",
              file=sys.stderr)
        return 2

    if a.one is not None:
        sys.setrecursionlimit(20000)
        print(json.dumps(one_seed(a)), flush=True)
        return 0

    seeds = ([int(s) for s in a.seeds.split(",")] if a.seeds
             else list(range(a.seed_start, a.seed_start + a.count)))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    results: list[dict] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="csmith_diff_") as tmp:
        work = Path(tmp)
        with ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for n, r in enumerate(pool.map(lambda s: child(s, a, work), seeds), 1):
                results.append(r)
                if a.json:  # written as it goes, so that an interrupted run still leaves its results
                    Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
                tag = r["cls"] + (f" / {r['bmc']}" if "bmc" in r else "")
                if r["cls"] in BUGS or r.get("bmc") in BUGS:
                    print(f"[{n}/{len(seeds)}] seed {r['seed']}: {tag}: {r.get('detail') or r.get('bmc_detail')}",
                          flush=True)
                    src = Path(r.get("src", ""))
                    if src.is_file():
                        shutil.copy(src, out / f"{r['seed']}.c")
                        (out / f"{r['seed']}.txt").write_text(json.dumps(r, indent=1) + "\n")
                elif n % 25 == 0:
                    print(f"[{n}/{len(seeds)}] {time.perf_counter() - t0:.0f} s", flush=True)
                # keep the temp folder small
                for f in (work / f"p{r['seed']}", work / f"p{r['seed']}.c"):
                    f.unlink(missing_ok=True)
    elapsed = time.perf_counter() - t0

    counts = collections.Counter(r["cls"] for r in results)
    rows = [[c, counts[c]] for c in ORDER if counts[c]] + [[c, n] for c, n in counts.items() if c not in ORDER]
    print(f"\n{len(results)} csmith programs (seeds {seeds[0]}..{seeds[-1]}), csmith {a.csmith_args}, "
          f"{elapsed:.0f} s\n")
    print(table(rows, ["interpreter vs gcc", "programs"]))
    unsup = collections.Counter(r.get("detail", "") for r in results if r["cls"] == "unsupported")
    if unsup:
        print()
        print(table([[m, n] for m, n in unsup.most_common()], ["unsupported (message)", "programs"]))
    if a.bmc:
        bc = collections.Counter(r["bmc"] for r in results if "bmc" in r)
        rows = [[c, bc[c]] for c in BMC_ORDER if bc[c]] + [[c, n] for c, n in bc.items() if c not in BMC_ORDER]
        print()
        print(table(rows, ["model checker vs gcc (agreeing programs)", "programs"]))
        bd = collections.Counter((r["bmc"], (r.get("bmc_detail") or "").splitlines()[-1][:90])
                                 for r in results if r.get("bmc") in ("bmc-unsupported", "bmc-timeout",
                                                                     "bmc-bound-too-small"))
        if bd:
            print()
            print(table([[c, d, n] for (c, d), n in bd.most_common()], ["outcome", "detail", "programs"]))
        times = sorted(r["bmc_time"] for r in results if "bmc_time" in r)
        if times:
            enc = [r["bmc_encode_time"] for r in results if "bmc_encode_time" in r]
            print(f"\nmodel checker on bmc-agree ({'z3 alone' if a.z3_only else 'z3 and Bitwuzla'}): "
                  f"mean {sum(times) / len(times):.1f} s (encoding {sum(enc) / max(len(enc), 1):.1f} s), "
                  f"median {times[len(times) // 2]:.1f} s, max {times[-1]:.1f} s, "
                  f"past 60 s {sum(t > 60 for t in times)}")
    bugs = [r for r in results if r["cls"] in BUGS or r.get("bmc") in BUGS]
    if bugs:
        print(f"\nbugs ({len(bugs)}), programs in {out}:")
        for r in sorted(bugs, key=lambda r: r["seed"]):
            kind = r["cls"] if r["cls"] in BUGS else r["bmc"]
            detail = (r.get("detail") if r["cls"] in BUGS else r.get("bmc_detail")) or ""
            print(f"- seed {r['seed']}: {kind}: {detail.splitlines()[-1] if detail else ''}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
