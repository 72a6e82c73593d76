"""`tracelearn diff OLD NEW` and `tracelearn merge BASE A B MERGED`: learned languages
compared (program explanation by default: all runs of main to its end)."""

from __future__ import annotations


from ..api.explaining import diff_learned, merge_learned, versions_document
from ..api.options import add_alphabet_options, add_frontend_options
from ..report.jsonout import dumps as json_text
from .progress import Progress


def add_parsers(sub) -> None:
    d = sub.add_parser("diff", help="behaviours only in OLD, only in NEW, and their symmetric difference")
    d.add_argument("old")
    d.add_argument("new")
    _common(d)
    d.set_defaults(run=run_diff)
    m = sub.add_parser("merge", help="behaviour of MERGED that neither branch A nor branch B has")
    m.add_argument("base")
    m.add_argument("a")
    m.add_argument("b")
    m.add_argument("merged")
    _common(m)
    m.set_defaults(run=run_merge)


def _common(p) -> None:
    add_alphabet_options(p)
    p.add_argument("--error", action="store_true",
                   help="compare languages of error instead of program behaviour (the default is --program main)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    add_frontend_options(p)


def _report(args, command: str, learned, diffs) -> int:
    if args.json:
        print(json_text(versions_document(args, command, learned, diffs), indent=2))
        return 0
    for f, r in learned:
        print(f"{f}: {r.automaton.num_states} states (b = {r.b}, bwl = {r.bwl})")
    for d in diffs:
        if d.empty:
            print(f"{d.description}: none")
            continue
        print(f"{d.description}: {d.dfa.num_states} states, e.g. {' . '.join(d.dfa.shortest_word() or ())}")
        for (s, l), t in sorted(d.dfa.transitions.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
            print(f"  {s} --{l}--> {t}{'  (accepting)' if t in d.dfa.accepting else ''}")
    return 0


def run_diff(args) -> int:
    with Progress(enabled=not args.quiet) as progress:
        learned = diff_learned(args, progress.update)
    return _report(args, "diff", *learned)


def run_merge(args) -> int:
    with Progress(enabled=not args.quiet) as progress:
        learned = merge_learned(args, progress.update)
    return _report(args, "merge", *learned)
