"""`tracelearn explain`: learn the DFA of all the ways an assertion fails (or, with
--program, of a function's behaviour)."""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path

from ..analyses.error_language.alphabet import AlphabetSpec, read_letters
from ..analyses.error_language.driver import ExplainOptions, ExplainResult, explain_program
from ..automata.dot import to_dot
from ..errors import OptionError, TracelearnError
from ..frontend.lower import load_program
from ..report.automaton_doc import explain_document
from ..report.html_report import html_report
from ..report.svg_layout import dot_svg, graphviz_available
from .deadline import CommandTimeout, watchdog
from .outputs import preflight, write_output
from .progress import Progress
from .options import add_frontend_options, parse_defines, parse_loop_bounds, positive, seconds
from ..report.jsonout import dumps as json_text

LEARNERS = ["lstar", "lstar-mp", "kv", "lsharp"]


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


def add_parser(sub) -> None:
    p = sub.add_parser("explain", help="learn the automaton of all the ways an assertion fails")
    p.add_argument("file", help="C source file")
    add_alphabet_options(p)
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print one JSON object")
    o.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    o.add_argument("--dot", metavar="FILE", help="write the automaton as DOT")
    o.add_argument("--svg", metavar="FILE", help="write the automaton as SVG (needs Graphviz's dot)")
    o.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    add_frontend_options(p)
    p.set_defaults(run=run)


def explain_options(args) -> ExplainOptions:
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
    return ExplainOptions(spec, args.bound, args.bwl, args.bmax, args.bwl_max, args.learner, args.lazy,
                          args.timeout, loop_bounds=parse_loop_bounds(args.unwind_loop),
                          cbmc_semantics=getattr(args, "semantics", "c") == "cbmc")


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
            "semantics",
            "data_model", "entry", "include", "define", "unwind_loop"]
    return {k: getattr(args, k, None) for k in keys}


def learn_file(args, file: str) -> tuple[ExplainResult, object]:
    t0 = time.perf_counter()
    try:  # learning watches its deadline itself; loading a file does not
        with watchdog(args.timeout):
            program = load_program(file, args.data_model.upper(), args.include, parse_defines(args.define),
                                   entry=args.entry)
    except CommandTimeout:
        raise TracelearnError(f"{file}: the time limit ({args.timeout:g} s) ran out while loading the program") from None
    args = copy.copy(args)
    args.timeout = max(0.001, args.timeout - (time.perf_counter() - t0))
    for w in program.warnings:
        print(f"warning: {w}", file=sys.stderr)
    opts = explain_options(args)
    with Progress(enabled=not getattr(args, "quiet", False)) as progress:
        opts.progress = lambda text: progress.update(f"{Path(file).name}: {text}")
        return explain_program(program, opts), program


def check_outputs(args, inputs: list[str]) -> None:
    """Output paths and Graphviz, before minutes of learning (never lose a result)."""
    for opt in ("dot", "svg", "html"):
        preflight(getattr(args, opt, None), f"--{opt}", inputs)
    if getattr(args, "svg", None) and not graphviz_available():
        raise OptionError("--svg needs Graphviz's `dot` on the PATH (use --html for a drawing without it)")


def run(args) -> int:
    check_outputs(args, [args.file])
    result, _ = learn_file(args, args.file)
    doc = explain_document(result, args.file, options_json(args))
    write_outputs(args, result, doc)
    if args.json:
        print(json_text(doc, indent=2))
    else:
        print(summary_text(result, doc))
    return 0


def write_outputs(args, result: ExplainResult, doc: dict) -> None:
    dot = to_dot(result.automaton, dominating=set(result.dominating_edges), doomed=result.doomed, hide_dead=False)
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
    if a.is_empty():
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
    s = doc["stats"]
    out.append(f"Queries: {s['membership_asked']} membership ({s['by_cache']} cache, {s['by_precheck']} pre-check, "
               f"{s['by_guess']} guessed, {s['membership_by_solver']} solver), {s['equivalence']} conjectures; "
               f"{s['solver_calls']} solver calls ({s['solver_time_s']}s); lazy fixes {s['lazy_fixes']}, "
               f"restarts {s['lazy_restarts']}; {s['time_s']}s")
    return "\n".join(out)
