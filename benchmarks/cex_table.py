"""Counterexample minimization in the shape of Groce & Kroening's Table 1, the TCAS #1
explanation, and scaling on bubble-sort networks.

    python benchmarks/cex_table.py [--benchmarks DIR] [--timeout 300] [--scaling 4..12]

For each program: the counterexample as found (normal), greedily minimized (CBMC's
--beautify) and optimally minimized (MaxSAT): time, sum of |values|, length. Every
counterexample is replayed in the interpreter (column "replay").
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.analyses.counterexample import CexOptions, analyze  # noqa: E402
from tracelearn.frontend.lower import load_program  # noqa: E402
from tracelearn.analyses.check import CheckOptions, check  # noqa: E402

HERE = Path(__file__).parent
EXAMPLES = HERE.parent / "src" / "tracelearn" / "examples"
ASSERTS = frozenset({"assertion"})


def run(path: str, entry: str, includes: list[str], method: str, timeout: float):
    t0 = time.perf_counter()
    program = load_program(path, "LP64", includes, entry=entry)
    res = check(program, CheckOptions(checks=ASSERTS, timeout_s=timeout))
    if res.counterexample is None:
        return None
    if method == "normal":
        a = analyze(res, ASSERTS, CexOptions(minimize="none"))
    else:
        a = analyze(res, ASSERTS, CexOptions(minimize="all", method=method, minimize_timeout_s=timeout))
    dt = time.perf_counter() - t0
    c = a.cex
    return dt, c.value_sum, c.length, c.minimized, c.replay.get("status"), a


def bubble_network(n: int) -> str:
    """A bubble-sort network on n inputs whose last comparator is reversed (the bug)."""
    lines = ["int nondet_int(void);", "#include <assert.h>", "int main(void) {"]
    lines += [f"    int x{i} = nondet_int();" for i in range(n)]
    lines.append("    int t;")
    pairs = [(j, j + 1) for i in range(n - 1) for j in range(n - 1 - i)]
    for k, (a, b) in enumerate(pairs):
        op = "<" if k == len(pairs) - 1 else ">"
        lines.append(f"    if (x{a} {op} x{b}) {{ t = x{a}; x{a} = x{b}; x{b} = t; }}")
    cond = " && ".join(f"x{i} <= x{i + 1}" for i in range(n - 1))
    lines.append(f"    assert({cond});")
    lines.append("    return 0;\n}")
    return "\n".join(lines) + "\n"


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--scaling", default="4..12")
    parser.add_argument("--skip-table", action="store_true")
    args = parser.parse_args()
    adpcm = str(root / "mediabench" / "adpcm")
    programs = [("sort.c", str(EXAMPLES / "sort.c"), "f", [])]
    programs += [(f"TCAS #{v}", str(root / "tcas" / "harness" / f"tcas_v{v}.c"), "main", []) for v in (1, 11, 31, 40, 41)]
    programs += [("adpcm_coder", str(HERE / "harnesses" / "adpcm_coder.c"), "main", [adpcm]),
                 ("adpcm_decoder", str(HERE / "harnesses" / "adpcm_decoder.c"), "main", [adpcm])]
    rows = []
    explain_row = None
    if not args.skip_table:
        for name, path, entry, inc in programs:
            row = [name]
            for method in ("normal", "greedy", "optimal"):
                r = run(path, entry, inc, method, args.timeout)
                if r is None:
                    row += ["-", "no cex", "-"]
                    continue
                dt, vs, ln, how, replay, a = r
                mark = "" if how in ("optimal", "greedy", "none") else f" ({how})"
                row += [f"{dt:.2f}", f"{vs:,}{mark}", ln]
                row.append(replay) if method == "optimal" else None
                if name == "TCAS #1" and method == "optimal":
                    explain_row = (path, a)
            rows.append(row)
            print(f"{name} done", file=sys.stderr, flush=True)
        print(table(rows, ["program", "normal s", "normal Σ|x|", "l", "greedy s", "greedy Σ|x|", "l",
                           "optimal s", "optimal Σ|x|", "l", "replay"]))
    if explain_row is not None:
        path, _ = explain_row
        program = load_program(path)
        res = check(program, CheckOptions(checks=ASSERTS))
        a = analyze(res, ASSERTS, CexOptions(minimize="all", explain=True, explain_timeout_s=args.timeout))
        e = a.explanation
        print(f"\nTCAS #1 explanation: distance {e.distance}, {len(e.causes)} causes from {e.candidates} "
              f"candidates in {e.time_s:.1f}s ({'complete' if e.complete else e.note})")
        print("changed branches: " + "; ".join(f"line {b.loc.line} `{b.condition}`" for b in e.branches))
        key = [c.text for c in e.causes if "Down_Separation" in c.text and ("ALIM" in c.text or "Thresh" in c.text)]
        print("causes relating Down_Separation to the threshold: " + ", ".join(key))
        del explain
    lo, hi = (int(x) for x in args.scaling.split(".."))
    srows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(lo, hi + 1):
            p = Path(tmp) / f"bubble{n}.c"
            p.write_text(bubble_network(n))
            g = run(str(p), "main", [], "greedy", args.timeout)
            o = run(str(p), "main", [], "optimal", args.timeout)
            srows.append([n, f"{g[0]:.2f}", g[1], g[2], f"{o[0]:.2f}", f"{o[1]}{'' if o[3] == 'optimal' else ' (' + o[3] + ')'}",
                          o[2], o[4]])
            print(f"bubble {n} done", file=sys.stderr, flush=True)
    print("\nBubble-sort networks (last comparator reversed): greedy vs optimal")
    print(table(srows, ["N", "greedy s", "greedy Σ|x|", "l", "optimal s", "optimal Σ|x|", "l", "replay"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
