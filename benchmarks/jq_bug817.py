"""jq's bug #817 ("incorrect handling of ./ in search path") reproduced by `tracelearn
run` on jq's own sources, next to gcc's jq.

At b5edbf7f, `jq -L ./tests/modules -n 'import "test_bind_order" as check;
check::check'` fails with "module not found: test_bind_order0" (the nested import
resolves ./ against the importing module's directory) while `-L tests/modules`
works; the fix 5d08d546 makes both work. Each command runs in the restored tree
(`bash benchmarks/jq/restore.sh`): through gcc's build of it and through `tracelearn
run` on its compile_commands.json (real file system: realpath, stat, fopen).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import benchmarks_dir, table
from jq_tests import build

PROGRAM = 'import "test_bind_order" as check; check::check'


def main(argv: list[str] | None = None) -> int:
    root, p = benchmarks_dir(argv, __doc__)
    p.parse_args(argv)
    trees = [root / "jq" / t for t in ("bug817", "fix817")]
    if not all((t / "compile_commands.json").exists() for t in trees):
        print(f"no jq sources under {root / 'jq'}: run `bash benchmarks/jq/restore.sh` first", file=sys.stderr)
        return 1
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for tree in trees:
            out = Path(tmp) / tree.name
            out.mkdir()
            exe = build(tree, out)
            for search in ("tests/modules", "./tests/modules"):
                args = ["-L", search, "-n", PROGRAM]
                g = subprocess.run([str(exe), *args], cwd=tree, capture_output=True)
                t0 = time.perf_counter()
                t = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "run", "compile_commands.json",
                                    "--", *args], cwd=tree, capture_output=True)
                secs = time.perf_counter() - t0
                err = b"".join(l for l in t.stderr.splitlines(True) if not l.startswith(b"warning: "))

                def shown(out: bytes, e: bytes, status: int) -> str:
                    return f"{status}: {(out + e).decode(errors='replace').strip().splitlines()[0]}"

                rows.append([tree.name, f"-L {search}", shown(g.stdout, g.stderr, g.returncode),
                             shown(t.stdout, err, t.returncode),
                             "yes" if (g.stdout, g.stderr, g.returncode) == (t.stdout, err, t.returncode) else "NO",
                             f"{secs:.1f}"])
    print(table(rows, ["jq", "search path", "gcc's jq (status: first line)", "tracelearn run", "same", "s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
