"""The commands' options: their declarations (one source of defaults for the CLI and
the Python API) and the parsing of option values into what the analyses take."""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

from ..analyses.error_language.alphabet import AlphabetSpec, read_letters
from ..errors import OptionError
from ..semantics.runs import ALL_CHECKS

if TYPE_CHECKING:
    from ..analyses.error_language.driver import ExplainOptions

# The checks `check` knows. The default set is today's runtime checks; `overflow`,
# `shift` and `memleak` are asked for by name (or `all`), as CBMC's options.
CHECK_NAMES = ("assertion", "error-call", "bounds", "pointer", "div-by-zero", "overflow", "shift", "memleak")
DEFAULT_CHECKS = ALL_CHECKS


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


def _number(text: str, convert, what: str, valid, need: str):
    try:
        v = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not {what}") from None
    if not valid(v):
        raise argparse.ArgumentTypeError(f"'{text}' must be {need}")
    return v


def positive(text: str) -> int:
    """An integer >= 1 (bounds, lengths, step limits: 0 means nothing to do)."""
    return _number(text, int, "an integer", lambda v: v >= 1, ">= 1")


def count(text: str) -> int:
    """An integer >= 0 (0: none)."""
    return _number(text, int, "an integer", lambda v: v >= 0, ">= 0")


def seconds(text: str) -> float:
    """A finite number of seconds > 0 (`nan` and `inf` are refused, not crashed on)."""
    return _number(text, float, "a number of seconds", lambda v: math.isfinite(v) and v > 0,
                   "a finite number of seconds > 0")


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (epsilon, delta)."""
    return _number(text, float, "a number", lambda v: 0 < v < 1, "strictly between 0 and 1")


def add_frontend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-model", default="LP64", choices=["ILP32", "LP64", "ilp32", "lp64"],
                   help="integer and pointer widths (default LP64)")
    p.add_argument("-I", dest="include", action="append", metavar="DIR", help="add an include directory")
    p.add_argument("-D", dest="define", action="append", metavar="NAME[=VALUE]", help="define a macro")
    p.add_argument("--unit", action="append", metavar="FILE",
                   help="another translation unit (a C file, or a compile_commands.json and its units) linked with "
                        "the program by name, as a C linker does; -I and -D apply to every unit (repeatable)")
    p.add_argument("--entry", default="main", metavar="FUNCTION",
                   help="entry function (default main; other entries get nondeterministic arguments)")


def split_units(args: argparse.Namespace) -> None:
    """``FILE [FILE...]`` on the command line: the first is the program's file, the
    others are linked with it as ``--unit``s."""
    files = list(args.file)
    args.file = files[0]
    args.unit = files[1:] + list(args.unit or [])


LEARNERS = ["lstar", "lstar-mp", "lstar-angluin", "kv", "lsharp"]


def add_alphabet_options(p) -> None:
    g = p.add_argument_group("alphabet and target")
    g.add_argument("--letters", metavar="F,G,...|FILE",
                   help="letters: entries of these functions (a list, or a file with one name per line)")
    g.add_argument("--alphabet", choices=["functions", "branches", "both", "none"], default="functions",
                   help="automatic letters: every function's entry (pv's --auto, default), every branch, both, "
                        "or none (only __tl_event/Learn events)")
    g.add_argument("--assertion", metavar="[FILE:]LINE", help="the assertion to explain (default: _Learn_assert, "
                                                              "else every assertion and error call)")
    g.add_argument("--target", metavar="KIND[,KIND]",
                   help="the failures the final letter stands for: assertion, error-call, bounds, pointer, "
                        "div-by-zero (default: the assertions and error calls; in a program with none, its "
                        "runtime errors: bounds,pointer,div-by-zero)")
    g.add_argument("--program", nargs="?", const="main", metavar="FUNCTION",
                   help="program explanation: the language of all paths reaching the end of FUNCTION (main)")
    b = p.add_argument_group("bounds and learning")
    b.add_argument("--bound", type=positive, help="loop/recursion bound b (default: 1..--bmax)")
    b.add_argument("--max-word-length", type=positive, dest="bwl",
                   help="bound bwl on the word length, the final letter included "
                        "(default: shortest CFG path .. --bwl-max)")
    b.add_argument("--bmax", type=positive, default=4, help="largest b of the automatic search (default 4)")
    b.add_argument("--bwl-max", type=positive, default=12, help="largest bwl of the automatic search (default 12)")
    b.add_argument("--unwind-loop", action="append", metavar="[FILE:]LINE=N", help="bound of one loop")
    b.add_argument("--learner", choices=LEARNERS, default="lstar", help="learning algorithm (default lstar)")
    b.add_argument("--lazy", action="store_true", default=True, help="lazy learning (default)")
    b.add_argument("--no-lazy", action="store_false", dest="lazy", help="ask every membership query")
    b.add_argument("--timeout", type=seconds, default=600.0, help="seconds (default 600)")
    b.add_argument("--semantics", choices=["c", "cbmc"], default="c",
                   help="c (default): a run ends at a failed check; cbmc: as pv's CBMC setup, runs go on "
                        "past failed runtime checks with arbitrary values (words need not be real runs) and "
                        "b counts as CBMC's --unwind (b-1 back edges)")
    b.add_argument("--engine", choices=["merged", "paths"], default="merged",
                   help="merged (default): one unwinding of all paths, joined where they meet; paths: every "
                        "path within the bound run on its own, then one equation of them (for programs whose "
                        "paths carry concrete data through long loops: string and heap libraries)")


def explain_options(args) -> ExplainOptions:
    # (imported here: the learner's modules are loaded by the commands that learn only)
    from ..analyses.error_language.driver import ExplainOptions

    if args.letters:
        functions: str | list[str] = read_letters(args.letters)
        branches = args.alphabet in ("branches", "both")
    else:
        functions = "auto" if args.alphabet in ("functions", "both") else "none"
        branches = args.alphabet in ("branches", "both")
    if args.program and args.assertion:
        raise OptionError("--program and --assertion exclude each other")
    if args.program and getattr(args, "target", None):
        raise OptionError("--program and --target exclude each other")
    spec = AlphabetSpec(functions, branches, args.assertion, args.program is not None, args.program or "main",
                        parse_targets(getattr(args, "target", None)))
    cbmc = getattr(args, "semantics", "c") == "cbmc"
    engine = getattr(args, "engine", "merged")
    if cbmc and engine == "paths":
        raise OptionError("--engine paths runs C's semantics: it excludes --semantics cbmc")
    return ExplainOptions(spec, args.bound, args.bwl, args.bmax, args.bwl_max, args.learner, args.lazy,
                          args.timeout, loop_bounds=parse_loop_bounds(args.unwind_loop),
                          cbmc_semantics=cbmc, engine=engine)


def parse_targets(text: str | None) -> frozenset[str] | None:
    if not text:
        return None
    kinds = frozenset(k.strip() for k in text.split(",") if k.strip())
    bad = kinds - {"assertion", "error-call", "bounds", "pointer", "div-by-zero"}
    if bad or not kinds:
        raise OptionError(f"--target: unknown check {', '.join(sorted(bad)) or text!r} "
                          f"(choose from assertion, error-call, bounds, pointer, div-by-zero)")
    return kinds


def options_json(args) -> dict:
    keys = ["letters", "alphabet", "assertion", "target", "program", "bound", "bwl", "bmax", "bwl_max", "learner", "lazy",
            "semantics", "engine",
            "data_model", "entry", "include", "define", "unit", "unwind_loop"]
    return {k: getattr(args, k, None) for k in keys}
