"""`tracelearn diff OLD NEW` and `tracelearn merge BASE A B MERGED`: learned languages
compared (program explanation by default: all runs of main to its end)."""

from __future__ import annotations


from ..analyses.error_language.versions import diff, merge_check
from ..report.automaton_doc import automaton_json
from .explain_cmd import add_alphabet_options, learn_file, options_json
from .options import add_frontend_options
from ..report.jsonout import dumps as json_text


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


def _learn_all(args, files: list[str]):
    if not args.error and args.program is None:
        args.program = "main"
    out = []
    for f in files:
        r, _ = learn_file(args, f)
        out.append((f, r))
    return out


def versions_document(args, command: str, learned, diffs) -> dict:
    return {
        "schema_version": "1.0", "command": command, "options": options_json(args),
        "inputs": [{"file": f, "bounds": {"b": r.b, "bwl": r.bwl}, "automaton": automaton_json(r.automaton)}
                   for f, r in learned],
        "differences": [{"name": d.name, "description": d.description, "empty": d.empty,
                         "automaton": automaton_json(d.dfa),
                         "shortest_word": list(d.dfa.shortest_word() or [])} for d in diffs],
    }


def diff_learned(args):
    learned = _learn_all(args, [args.old, args.new])
    return learned, diff(learned[0][1].dfa, learned[1][1].dfa)


def merge_learned(args):
    learned = _learn_all(args, [args.base, args.a, args.b, args.merged])
    base, a, b, m = (r.dfa for _, r in learned)
    return learned, merge_check(base, a, b, m)


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
    return _report(args, "diff", *diff_learned(args))


def run_merge(args) -> int:
    return _report(args, "merge", *merge_learned(args))
