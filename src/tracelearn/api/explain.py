"""``tracelearn.explain`` / ``diff`` / ``merge``: languages of error and program
explanations, the data of the commands' ``--json``."""

from __future__ import annotations

import argparse

from ..errors import OptionError
from ..report.automaton_doc import explain_document


def _arguments(command: str, files: list[str], options: dict) -> argparse.Namespace:
    """The command's own option defaults, overridden by ``options`` (one source of
    defaults for the CLI and the API)."""
    from ..cli.main import build_parser

    ns = build_parser().parse_args([command, *files])
    for k, v in options.items():
        if k in ("file", "run", "command") or not hasattr(ns, k):
            raise OptionError(f"unknown option '{k}' of {command}")
        setattr(ns, k, v)
    return ns


def explain(file: str, **options) -> dict:
    """Learn the language of error of ``file`` (or, with ``program="main"``, its
    program explanation); returns what ``tracelearn explain --json`` prints. Options
    are the command's, with underscores: ``bound``, ``bwl`` (--max-word-length),
    ``letters``, ``alphabet``, ``assertion``, ``learner``, ``lazy``, ``timeout``, ..."""
    from ..cli.explain_cmd import learn_file, options_json

    args = _arguments("explain", [file], options)
    result, _ = learn_file(args, file)
    return explain_document(result, file, options_json(args))


def diff(old: str, new: str, **options) -> dict:
    """Behaviours only in ``old``, only in ``new``: what ``tracelearn diff --json`` prints."""
    from ..cli.versions_cmd import diff_learned, versions_document

    args = _arguments("diff", [old, new], options)
    return versions_document(args, "diff", *diff_learned(args))


def merge(base: str, a: str, b: str, merged: str, **options) -> dict:
    """Behaviours of ``merged`` in neither branch: what ``tracelearn merge --json`` prints."""
    from ..cli.versions_cmd import merge_learned, versions_document

    args = _arguments("merge", [base, a, b, merged], options)
    return versions_document(args, "merge", *merge_learned(args))
