"""TCAS: the interpreter's output against the gcc-compiled program on SIR's inputs.

For the original and each faulty version, every line of SIR's `universe` is run
both ways; outputs must be equal, except that runs the interpreter stops with an
out-of-bounds access (Alt_Layer_Value outside 0..3, undefined behaviour in C) are
counted separately. Also reports the interpreter's speed (IR statements per second).

    python benchmarks/tcas_diff.py [--benchmarks ../shared/benchmarks] [--limit N]
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.frontend.lower import load_program  # noqa: E402
from tracelearn.semantics.inputs import InputSource  # noqa: E402
from tracelearn.semantics.interpreter import Interpreter, InterpOptions  # noqa: E402


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="only the first N inputs")
    args = parser.parse_args()
    tcas = root / "tcas"
    universe = [ln.split() for ln in (tcas / "sir" / "universe").read_text().splitlines() if ln.strip()]
    if args.limit:
        universe = universe[: args.limit]
    versions = [("original", tcas / "tcas.c")] + [(f"v{v}", tcas / "versions" / f"v{v}" / "tcas.c")
                                                   for v in (1, 11, 23, 31, 40, 41)]
    rows = []
    total_stmts = 0
    total_time = 0.0
    all_ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, src in versions:
            exe = Path(tmp) / name
            subprocess.run(["gcc", "-w", "-O0", "-o", str(exe), str(src)], check=True)
            program = load_program(str(src))
            out = io.BytesIO()
            it = Interpreter(program, InterpOptions(stdout=out, stderr=io.BytesIO(), real_io=True,
                                                    record_trace=False))
            same = differ = oob = 0
            # The interpreter's runs first, timed together, then gcc's: a process started
            # between two runs (fork, exec) slowed the next run's first statements, and the
            # figure measured that (0.9 M statements/s interleaved, 1.25 M alone, same code).
            runs = []
            executed = 0
            t0 = time.perf_counter()
            for words in universe:
                out.seek(0)
                out.truncate()
                r = it.run(InputSource([]), argv=words)
                runs.append((r, out.getvalue()))
                executed += r.statements
            t_interp = time.perf_counter() - t0
            for words, (r, mine) in zip(universe, runs):
                ref = subprocess.run([str(exe)] + words, capture_output=True).stdout
                if r.status == "violation" and r.violation is not None and r.violation.kind in ("bounds", "pointer"):
                    oob += 1
                elif r.status == "ok" and mine == ref:
                    same += 1
                else:
                    differ += 1
                    if differ <= 3:
                        print(f"  {name} {' '.join(words)}: interpreter {mine!r} ({r.status} {r.violation}) gcc {ref!r}")
            all_ok = all_ok and differ == 0
            n_stmt = executed
            total_stmts += n_stmt
            total_time += t_interp
            rows.append([name, len(universe), same, oob, differ, f"{t_interp:.2f}", f"{n_stmt / t_interp:,.0f}"])
    print(table(rows, ["version", "inputs", "same output as gcc", "out of bounds (reported)", "different",
                       "interpreter s", "IR statements/s"]))
    print(f"\ninterpreter speed over all versions: {total_stmts / total_time:,.0f} IR statements/s")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
