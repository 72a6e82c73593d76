"""``tracelearn.explain`` / ``diff`` / ``merge``: languages of error and program
explanations, the data of the commands' ``--json``; the drivers the commands print."""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path
from typing import Callable

from ..analyses.error_language.driver import ExplainResult, explain_program
from ..analyses.error_language.versions import diff as diff_dfas, merge_check
from ..errors import OptionError, TracelearnError
from ..frontend.lower import load_program
from ..ir.program import Program
from ..report.automaton_doc import automaton_json, explain_document
from .deadline import CommandTimeout, watchdog
from .options import add_alphabet_options, add_frontend_options, explain_options, options_json, parse_defines

FILES = {"explain": ("file",), "diff": ("old", "new"), "merge": ("base", "a", "b", "merged")}


def arguments(command: str, files: list[str], options: dict) -> argparse.Namespace:
    """The command's option defaults (the declarations the CLI uses), overridden by
    ``options``."""
    p = argparse.ArgumentParser(add_help=False)
    add_alphabet_options(p)
    add_frontend_options(p)
    if command != "explain":
        p.add_argument("--error", action="store_true")
    ns = p.parse_args([])
    for name, f in zip(FILES[command], files):
        setattr(ns, name, f)
    for k, v in options.items():
        if k in FILES[command] or not hasattr(ns, k):
            raise OptionError(f"unknown option '{k}' of {command}")
        setattr(ns, k, v)
    return ns


def learn_file(args, file: str, progress: Callable[[str], None] | None = None) -> tuple[ExplainResult, Program]:
    """Load ``file`` and learn its language (``args``: the explain options)."""
    t0 = time.perf_counter()
    try:  # learning watches its deadline itself; loading a file does not
        with watchdog(args.timeout):
            program = load_program(file, args.data_model.upper(), args.include, parse_defines(args.define),
                                   entry=args.entry, units=getattr(args, "unit", None) or ())
    except CommandTimeout:
        raise TracelearnError(f"{file}: the time limit ({args.timeout:g} s) ran out while loading the program") from None
    args = copy.copy(args)
    args.timeout = max(0.001, args.timeout - (time.perf_counter() - t0))
    for w in program.warnings:
        print(f"warning: {w}", file=sys.stderr)
    opts = explain_options(args)
    if progress is not None:
        name = Path(file).name
        opts.progress = lambda text: progress(f"{name}: {text}")
    return explain_program(program, opts), program


def learn_versions(args, files: list[str], progress: Callable[[str], None] | None = None):
    """Each file's learned language (program explanations unless ``args.error``)."""
    if not args.error and args.program is None:
        args.program = "main"
    return [(f, learn_file(args, f, progress)[0]) for f in files]


def diff_learned(args, progress: Callable[[str], None] | None = None):
    learned = learn_versions(args, [args.old, args.new], progress)
    return learned, diff_dfas(learned[0][1].dfa, learned[1][1].dfa)


def merge_learned(args, progress: Callable[[str], None] | None = None):
    learned = learn_versions(args, [args.base, args.a, args.b, args.merged], progress)
    base, a, b, m = (r.dfa for _, r in learned)
    return learned, merge_check(base, a, b, m)


def versions_document(args, command: str, learned, diffs) -> dict:
    return {
        "schema_version": "1.0", "command": command, "options": options_json(args),
        "inputs": [{"file": f, "bounds": {"b": r.b, "bwl": r.bwl}, "automaton": automaton_json(r.automaton)}
                   for f, r in learned],
        "differences": [{"name": d.name, "description": d.description, "empty": d.empty,
                         "automaton": automaton_json(d.dfa),
                         "shortest_word": list(d.dfa.shortest_word() or [])} for d in diffs],
    }


def explain(file: str, **options) -> dict:
    """Learn the language of error of ``file`` (or, with ``program="main"``, its
    program explanation); returns what ``tracelearn explain --json`` prints. Options
    are the command's, with underscores: ``bound``, ``bwl`` (--max-word-length),
    ``letters``, ``alphabet``, ``assertion``, ``learner``, ``lazy``, ``timeout``, ..."""
    args = arguments("explain", [file], options)
    result, _ = learn_file(args, file)
    return explain_document(result, file, options_json(args))


def diff(old: str, new: str, **options) -> dict:
    """Behaviours only in ``old``, only in ``new``: what ``tracelearn diff --json`` prints."""
    args = arguments("diff", [old, new], options)
    return versions_document(args, "diff", *diff_learned(args))


def merge(base: str, a: str, b: str, merged: str, **options) -> dict:
    """Behaviours of ``merged`` in neither branch: what ``tracelearn merge --json`` prints."""
    args = arguments("merge", [base, a, b, merged], options)
    return versions_document(args, "merge", *merge_learned(args))
