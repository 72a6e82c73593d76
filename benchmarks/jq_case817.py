"""The case study of language-of-error.txt's Appendix A: jq bug #817 explained.

`tracelearn explain` learns the language of error of our harness around jq's
`build_lib_search_chain` (benchmarks/jq/case817/harness.c: a nondeterministic search
path of up to two directories, each written one of five ways, and a nondeterministic
library origin, with an event on each; the assertion: writing a relative directory
"./m" or "m" names the same directory). It runs on jq's own sources, restored by
`bash benchmarks/jq/restore.sh`, at the bug (b5edbf7f) and at its fix (5d08d546),
with the path engine (`--engine paths`: jq's string and array library carries
concrete data through long loops). Every witness is replayed in the interpreter
(`tracelearn replay`).

pv (the paper) learned its automaton of the whole jq in 28 minutes with lazy learning
(59 without), at unwind 4 and word length 12, with CBMC; the harness here is ours,
so the figures are side by side, not a race.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import benchmarks_dir, table

HARNESS = Path(__file__).parent / "jq" / "case817" / "harness.c"
# The jv library and util.c: what build_lib_search_chain calls (linker.c is the harness's own unit).
UNITS = ["jv.c", "jv_alloc.c", "jv_print.c", "jv_unicode.c", "jv_dtoa.c", "util.c"]
DEFINES = ["IEEE_8087", "_GNU_SOURCE", "HAVE_MEMMEM"]


def explain(tree: Path, bound: int, bwl: int, timeout: float, extra: list[str]) -> tuple[dict | None, str, float]:
    cmd = [sys.executable, "-m", "tracelearn.cli.main", "explain", str(HARNESS), "-I", str(tree),
           *[f"-D{d}" for d in DEFINES], *[x for u in UNITS for x in ("--unit", str(tree / u))],
           "--alphabet", "none", "--engine", "paths", "--bound", str(bound), "--max-word-length", str(bwl),
           "--timeout", str(timeout), "--quiet", "--json", *extra]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}", secs
    return json.loads(p.stdout), "", secs


def replay(doc: dict) -> str:
    if not doc["witnesses"]:
        return "-"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "replay", f.name], capture_output=True, text=True)
    Path(f.name).unlink()
    last = [l for l in p.stdout.splitlines() if "replayed" in l]
    return last[-1].strip() if last else f"exit {p.returncode}"


def main(argv: list[str] | None = None) -> int:
    root, p = benchmarks_dir(argv, __doc__)
    p.add_argument("--bound", type=int, default=16, help="loop bound b (jq's string loops need ~10)")
    p.add_argument("--bwl", type=int, default=5, help="word length bound (2 directories + origin + assert: 4)")
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--no-lazy", action="store_true", help="ask every membership query (pv's 59-minute setting)")
    args = p.parse_args(argv)
    trees = [root / "jq" / t for t in ("bug817", "fix817")]
    if not all((t / "linker.c").exists() for t in trees):
        print(f"no jq sources under {root / 'jq'}: run `bash benchmarks/jq/restore.sh` first", file=sys.stderr)
        return 1
    rows, docs = [], []
    for tree in trees:
        doc, err, secs = explain(tree, args.bound, args.bwl, args.timeout, ["--no-lazy"] if args.no_lazy else [])
        if doc is None:
            rows.append([tree.name, "error: " + err, "", "", "", "", "", "", f"{secs:.0f}"])
            continue
        a, s = doc["automaton"], doc["stats"]
        rows.append([tree.name, f"{len(a['states'])} states, {len(a['transitions'])} edges",
                     "empty" if not a["accepting"] else f"{len(doc['witnesses'])} words",
                     f"{s.get('paths')} ({s.get('paths_cut_by_bound')} cut)",
                     str(s["membership_asked"]), str(s["membership_by_solver"]), str(s["solver_calls"]),
                     replay(doc), f"{secs:.0f}"])
        docs.append((tree.name, doc))
    print(f"b = {args.bound}, bwl = {args.bwl}, {'no lazy' if args.no_lazy else 'lazy'} learning, --engine paths")
    print(table(rows, ["jq", "automaton", "language", "paths", "membership", "by solver", "solver calls", "replay",
                       "s"]))
    for name, doc in docs:
        a = doc["automaton"]
        if not a["accepting"]:
            print(f"\n{name}: no run within the bounds fails the assertion"
                  + (f" (incomplete: {doc['incomplete']})" if doc.get("incomplete") else ""))
            continue
        print(f"\n{name}: initial {a['initial']}, accepting {a['accepting']}")
        for t in sorted(a["transitions"], key=lambda t: (t["from"], t["letter"])):
            print(f"  {t['from']} --{t['letter']}--> {t['to']}")
        print("  dominating letters:", ", ".join(doc["dominating_letters"]))
        for w in doc["witnesses"][:40]:
            print("  " + " . ".join(w["word"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
