"""Command-line parsing shared by the commands: one clear error line, exit 2."""

from __future__ import annotations

import argparse
import math
import sys
from typing import NoReturn

from ..errors import OptionError
from ..semantics.interpreter import ALL_CHECKS

# The checks `check` knows. The default set is today's runtime checks; `overflow`,
# `shift` and `memleak` are asked for by name (or `all`), as CBMC's options.
CHECK_NAMES = ("assertion", "error-call", "bounds", "pointer", "div-by-zero", "overflow", "shift", "memleak")
DEFAULT_CHECKS = ALL_CHECKS


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        sys.stderr.write(f"tracelearn: error: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


def parse_checks(text: str | None) -> frozenset[str]:
    if text is None or text.strip() == "default":
        return DEFAULT_CHECKS
    if text.strip() == "all":
        return frozenset(CHECK_NAMES)
    out = set()
    for part in text.split(","):
        p = part.strip()
        if p == "assertions":
            out |= {"assertion", "error-call"}
        elif p == "default":
            out |= DEFAULT_CHECKS
        elif p in CHECK_NAMES:
            out.add(p)
        elif p:
            raise OptionError(f"unknown check '{p}' (choose from {', '.join(CHECK_NAMES)}, assertions, default, all)")
    if not out:
        raise OptionError("--checks names no check (give e.g. 'assertion' or 'default')")
    return frozenset(out)


def parse_loop_bounds(items: list[str] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items or []:
        loc, sep, n = item.rpartition("=")
        if not sep or not loc or not n.isdigit() or not loc.rpartition(":")[2].isdigit():
            raise OptionError(f"bad --unwind-loop '{item}' (expected LINE=N or FILE:LINE=N)")
        out[loc] = int(n)
    return out


def parse_defines(items: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        k, _, v = item.partition("=")
        out[k] = v or "1"
    return out


def positive(text: str) -> int:
    """An integer >= 1 (bounds, lengths, step limits: 0 means nothing to do)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be >= 1")
    return v


def seconds(text: str) -> float:
    """A finite number of seconds > 0 (`nan` and `inf` are refused, not crashed on)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be a finite number of seconds > 0")
    return v


def add_frontend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-model", default="LP64", choices=["ILP32", "LP64", "ilp32", "lp64"],
                   help="integer and pointer widths (default LP64)")
    p.add_argument("-I", dest="include", action="append", metavar="DIR", help="add an include directory")
    p.add_argument("-D", dest="define", action="append", metavar="NAME[=VALUE]", help="define a macro")
    p.add_argument("--entry", default="main", metavar="FUNCTION",
                   help="entry function (default main; other entries get nondeterministic arguments)")
