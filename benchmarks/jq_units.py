"""jq's translation units through tracelearn's frontend (issue: whole programs).

For each jq tree restored by `bash benchmarks/jq/restore.sh`: every unit of its
compile_commands.json lowered alone, then the whole program linked, as
`tracelearn check ../shared/benchmarks/jq/bug817/compile_commands.json` loads it.
Prints one table row per tree, and the library functions the program calls that
tracelearn has no model for (their calls return nondeterministic values).
"""

from __future__ import annotations

import re
import sys
import time
from collections import Counter

from common import benchmarks_dir, table

from tracelearn.errors import TracelearnError
from tracelearn.frontend.lower import load_program
from tracelearn.frontend.units import compilation_database


def main(argv: list[str] | None = None) -> int:
    root, p = benchmarks_dir(argv, __doc__)
    p.parse_args(argv)
    trees = sorted(d for d in (root / "jq").glob("*") if (d / "compile_commands.json").exists()) \
        if (root / "jq").exists() else []
    if not trees:
        print(f"no jq sources under {root / 'jq'}: run `bash benchmarks/jq/restore.sh` first", file=sys.stderr)
        return 1
    rows, unmodelled = [], Counter()
    for tree in trees:
        db = str(tree / "compile_commands.json")
        units = compilation_database(db)
        alone, failures = 0, []
        t0 = time.perf_counter()
        for u in units:
            try:
                load_program(u.file, "LP64", u.include_dirs, u.defines, entry="__no_entry__")
            except TracelearnError as e:
                if "no definition of the entry function '__no_entry__'" in str(e):
                    alone += 1
                else:
                    failures.append(f"{u.file}: {e}")
        t_units = time.perf_counter() - t0
        t0 = time.perf_counter()
        try:
            prog = load_program(db, "LP64")
            whole = f"{len(prog.procedures)} procedures, {len(prog.globals)} globals"
            for w in prog.warnings:
                m = re.search(r"(?:no body for|implicit declaration of) function '(\w+)'", w)
                if m:
                    unmodelled[m.group(1)] += 1
        except TracelearnError as e:
            whole = f"error: {e}"
        t_whole = time.perf_counter() - t0
        lines = sum(len((tree / u.file).read_text(errors="replace").splitlines()) for u in units)
        rows.append([tree.name, len(units), lines, f"{alone}/{len(units)}", f"{t_units:.1f}", whole, f"{t_whole:.1f}"])
        for f in failures:
            print(f"  {f}")
    print(table(rows, ["tree", "units", "lines", "lowered alone", "s", "whole program (linked)", "s"]))
    if unmodelled:
        print("\nfunctions without a model (calls return nondeterministic values):",
              ", ".join(sorted(unmodelled)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
