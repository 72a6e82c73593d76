"""`tracelearn explain`: learn the DFA of all the ways an assertion fails (or, with
--program, of a function's behaviour)."""

from __future__ import annotations

import sys

from ..analyses.error_language.driver import ExplainResult
from ..api.explaining import learn_file
from ..api.options import add_alphabet_options, add_frontend_options, options_json, split_units
from ..errors import OptionError
from ..report.automaton_doc import explain_document
from ..report.html_report import automaton_dot, html_report
from ..report.jsonout import dumps as json_text
from ..report.svg_layout import dot_svg, graphviz_available
from .outputs import preflight, write_output
from .progress import Progress


def add_parsers(sub) -> None:
    p = sub.add_parser("explain", help="learn the automaton of all the ways an assertion fails")
    p.add_argument("file", nargs="+", help="C source file; more C files or a compile_commands.json are linked with "
                                          "it (as --unit)")
    add_alphabet_options(p)
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print one JSON object")
    o.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    o.add_argument("--dot", metavar="FILE", help="write the automaton as DOT")
    o.add_argument("--svg", metavar="FILE", help="write the automaton as SVG (needs Graphviz's dot)")
    o.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    add_frontend_options(p)
    p.set_defaults(run=run)


def check_outputs(args, inputs: list[str]) -> None:
    """Output paths and Graphviz, before minutes of learning (never lose a result)."""
    for opt in ("dot", "svg", "html"):
        preflight(getattr(args, opt, None), f"--{opt}", inputs)
    if getattr(args, "svg", None) and not graphviz_available():
        raise OptionError("--svg needs Graphviz's `dot` on the PATH (use --html for a drawing without it)")


def run(args) -> int:
    split_units(args)
    check_outputs(args, [args.file])
    with Progress(enabled=not args.quiet) as progress:
        result, _ = learn_file(args, args.file, progress=progress.update)
    doc = explain_document(result, args.file, options_json(args))
    write_outputs(args, result, doc)
    if args.json:
        print(json_text(doc, indent=2))
    else:
        print(summary_text(result, doc))
    return 0


def write_outputs(args, result: ExplainResult, doc: dict) -> None:
    dot = automaton_dot(result)
    if args.dot:
        write_output(args.dot, dot, "--dot")
    if args.svg:
        svg = dot_svg(dot)
        if svg is None:
            print("tracelearn: warning: --svg: Graphviz's dot failed; no SVG written", file=sys.stderr)
        else:
            write_output(args.svg, svg, "--svg")
    if args.html:
        write_output(args.html, html_report(result, args.file, doc), "--html")


def summary_text(r: ExplainResult, doc: dict) -> str:
    a = r.automaton
    what = "fails the assertion" if r.mode == "error" else "reaches the end"
    out = [f"{'Language of error' if r.mode == 'error' else 'Program explanation'} "
           f"(b = {r.b}, bwl = {r.bwl}{', converged' if r.converged else ', NOT converged'}): "
           f"{a.num_states} states, {len(a.transitions)} transitions"]
    out.append(f"alphabet: {', '.join(doc['alphabet'])}")
    if a.is_empty() and r.incomplete:
        out.append(f"No run found that {what}, but some paths could not be followed (see 'incomplete').")
    elif a.is_empty():
        out.append(f"No run within the bounds {what}.")
    else:
        out.append(f"Initial state {a.initial}; accepting: {', '.join(map(str, sorted(a.accepting)))}")
        for (s, l), t in sorted(a.transitions.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
            mark = "  [dominating]" if (s, l, t) in set(r.dominating_edges) else ""
            out.append(f"  {s} --{l}--> {t}{mark}")
        if r.dominating:
            out.append(f"Dominating letters (on every accepted word): {', '.join(r.dominating)}")
        if r.doomed:
            out.append(f"Doomed states (acceptance inevitable): {', '.join(map(str, sorted(r.doomed)))}")
        shortest = a.shortest_word()
        if shortest:
            out.append(f"Shortest accepted word: {' . '.join(shortest)}")
    for n in r.notes:
        out.append(f"note: {n}")
    for n in r.incomplete:
        out.append(f"incomplete: paths cut, their words may be missing: {n}")
    s = doc["stats"]
    out.append(f"Queries: {s['membership_asked']} membership ({s['by_cache']} cache, {s['by_precheck']} pre-check, "
               f"{s['by_guess']} guessed, {s['membership_by_solver']} solver), {s['equivalence']} conjectures; "
               f"{s['solver_calls']} solver calls ({s['solver_time_s']}s); lazy fixes {s['lazy_fixes']}, "
               f"restarts {s['lazy_restarts']}; {s['time_s']}s")
    return "\n".join(out)
