"""Helpers shared by the benchmark scripts (not part of the package)."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks"


def benchmarks_dir(argv: list[str] | None = None, description: str = "") -> tuple[Path, argparse.ArgumentParser]:
    # -h is added after the first pass so that the caller's own options show in the help
    p = argparse.ArgumentParser(description=description, add_help=False,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--benchmarks", default=os.environ.get("TRACELEARN_BENCHMARKS", str(DEFAULT_SHARED)),
                   help="folder of the third-party benchmark programs (default ../shared/benchmarks)")
    root = Path(p.parse_known_args(argv)[0].benchmarks)
    p.add_argument("-h", "--help", action="help", help="show this help message and exit")
    return root, p


def table(rows: list[list], headers: list[str]) -> str:
    cols = list(zip(*([headers] + [[str(c) for c in r] for r in rows]))) if rows else [[h] for h in headers]
    widths = [max(len(str(c)) for c in col) for col in cols]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    out = [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def best_of(cmd: list[str], runs: int) -> tuple[float, str]:
    """Run a timing program ``runs`` times (it prints its own time first, then what it
    computed): the least time, and the rest of its output (of the last run)."""
    best, result = float("inf"), ""
    for _ in range(runs):
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
        best, result = min(best, float(out[0])), " ".join(out[1:])
    return best, result
