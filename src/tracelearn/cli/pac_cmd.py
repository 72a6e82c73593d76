"""`tracelearn pac`: PAC verification (learn the feasible decision vectors, or find a
feasible error)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..analyses.pac.driver import PAC_LEARNERS
from ..api.options import add_frontend_options, count, positive, probability, seconds
from ..analyses.pac.properties import FORMS
from ..api.pac_verification import pac_file, pac_reuse_file
from ..errors import OptionError
from ..automata.dot import to_dot
from ..report.jsonout import dumps as json_text
from ..report.pac_html import pac_html
from ..report.playback import write_playback
from ..report.sarif import sarif_document
from ..report.witness import specification, witness_yaml
from ..report.trace_text import value_text
from ..semantics.strategies.concolic import STARTS, STRATEGIES
from .outputs import preflight, write_output
from .progress import Progress

EPILOG = """\
Convention: DELTA is the confidence, as in the Pac-Man paper (epsilon 0.1, delta 0.9:
with probability at least 0.9, a fresh batch of k decision vectors from the sampler
holds one outside the learned automaton with probability at most 0.1; the error
probability of the guarantee is 1 - delta). The i-th equivalence query draws
ceil((ln(1/(1-delta)) + i ln 2) / epsilon) batches: 30, 37, 44, ... for the defaults.
Verdicts: bug (a feasible error, replayed in the interpreter), pac-correct, unknown."""


def add_parsers(sub) -> None:
    p = sub.add_parser("pac", help="PAC verification: learn the feasible decision vectors or find a bug",
                       epilog=EPILOG, formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("file", help="C source file")
    g = p.add_argument_group("guarantee and sampling")
    g.add_argument("--epsilon", type=probability, default=0.1, help="error parameter (default 0.1)")
    g.add_argument("--delta", type=probability, default=0.9, help="confidence (default 0.9; see below)")
    g.add_argument("--batch", type=positive, default=10, help="decision vectors per batched sample, k (default 10)")
    g.add_argument("--strategy", choices=STRATEGIES, default="rbs",
                   help="sampler: CREST's random branch (rbs, default), CFG-directed (cds), depth-first (dfs) "
                        "search, or uniformly random inputs")
    g.add_argument("--start", choices=STARTS, default="zero",
                   help="where a concolic tester's inputs start: zero (default, as CREST: new inputs are 0 and a "
                        "flip keeps the inputs its solution leaves out) or uniform (random values, drawn afresh "
                        "for every run); random-input sampling is always uniform")
    g.add_argument("--bug-search", type=count, default=4, metavar="N",
                   help="one batch of a bug search before the sampler's first batch and every N-th after it (default 4; 0: none, "
                        "as the paper): random branch search whose flips are solved at random small values or "
                        "near the program's constants, conditions heading for the error flipped first, "
                        "which reaches runs the sampler's first solutions do not; a failing run there is a bug, "
                        "its other runs change nothing (the guarantee is the sampler's)")
    g.add_argument("--learner", choices=list(PAC_LEARNERS), default="kv",
                   help="kv (default), lsharp, lstar (Angluin's L*: counterexample prefixes as rows), rs (L* with "
                        "Rivest-Schapire), lstar-col (L*, counterexample suffixes as columns), nlstar (NL*: residual NFAs)")
    g.add_argument("--max-decisions", type=positive, default=1000,
                   help="decision bound: a longer run contributes its first N decisions (default 1000)")
    g.add_argument("--split-conditions", action="store_true",
                   help="one decision per branch of && || ! (default: one per source condition)")
    g.add_argument("--seed", type=int, default=0, help="seed of the sampler (default 0)")
    g.add_argument("--timeout", type=seconds, default=900.0, help="seconds (default 900, SV-COMP 2015's)")
    m = p.add_argument_group("model reuse (the paper's Sec. 12: no relearning when the property holds)")
    m.add_argument("--model", metavar="M.json",
                   help="a model saved by 'tracelearn pac FILE --json' (pac-correct); its guarantee and sampling "
                        "options are used")
    m.add_argument("--property", metavar="P",
                   help="what to check against --model: " + FORMS)
    m.add_argument("--no-relearn", action="store_true",
                   help="when the model is refuted (it accepts an infeasible vector), stop there instead of "
                        "learning it again")
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print one JSON object")
    o.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    o.add_argument("--dot", metavar="FILE", help="write the learned automaton as DOT")
    o.add_argument("--html", metavar="FILE",
                   help="write a self-contained HTML report: the verdict, its guarantee and distribution, a bug's "
                        "decision vector at its source conditions, the automaton drawn")
    o.add_argument("--sarif", metavar="FILE", help="write a found bug as SARIF")
    o.add_argument("--witness", metavar="FILE",
                   help="write a found bug as an SV-COMP violation witness (YAML, format 2.0)")
    o.add_argument("--playback", metavar="DIR", help="write a C harness that replays a found bug with gcc")
    add_frontend_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    for opt in ("dot", "html", "sarif", "witness"):
        preflight(getattr(args, opt), f"--{opt}", [args.file])
    preflight(args.playback, "--playback", [args.file], directory=True)
    if (args.model is None) != (args.property is None):
        raise OptionError("--model and --property go together (a saved model and the property to check on it)")
    if args.model is not None:
        if args.dot or args.html:
            raise OptionError("--dot and --html write the model a learning run makes: not with --model "
                              "(the model is that file; --json gives the property's verdict and witness)")
        return run_reuse(args)
    with Progress(enabled=not args.quiet) as progress:
        r = pac_file(args.file, epsilon=args.epsilon, delta=args.delta, batch=args.batch, learner=args.learner,
                     strategy=args.strategy, max_decisions=args.max_decisions, seed=args.seed,
                     split_conditions=args.split_conditions, start=args.start,
                     bug_search=args.bug_search, timeout=args.timeout, data_model=args.data_model,
                     include=args.include, define=dict(d.partition("=")[::2] for d in args.define or []),
                     entry=args.entry, units=args.unit, progress=progress.update)
    res, doc = r.result, r.doc
    if args.dot and res.automaton is not None:
        write_output(args.dot, to_dot(res.automaton, name="decisions"), "--dot")
    if res.counterexample is not None and r.program is not None:
        write_bug(args, r.program, res.counterexample, doc["data_model"])
    print(json_text(doc) if args.json else summary_text(doc))
    if args.html:  # (after the result: a page that fails to be made loses nothing)
        sources = (r.program.sources.get(args.file) if r.program is not None else None) or \
            Path(args.file).read_text(errors="replace").splitlines()
        write_output(args.html, pac_html(doc, res.automaton, sources), "--html")
    return 0


def write_bug(args, program, cex, data_model: str) -> None:
    """The outputs of a found bug, as `check` writes them."""
    if args.sarif:
        write_output(args.sarif, json_text(sarif_document([cex], "false")), "--sarif")
    if args.witness:
        if specification(cex) is None or cex.waypoints is None:
            print(f"note: no witness written to {args.witness}: SV-COMP has no property for a {cex.kind} "
                  "failure", file=sys.stderr)
        else:
            write_output(args.witness, witness_yaml(cex, args.file, data_model, cex.waypoints), "--witness")
    if args.playback:
        try:
            write_playback(program, cex, args.file, args.playback)
        except OSError as e:
            print(f"tracelearn: warning: --playback {args.playback}: not written ({e.strerror or e})",
                  file=sys.stderr)


def summary_text(doc: dict) -> str:
    s = doc["stats"]
    out = [f"PAC verification of {doc['file']}: {doc['verdict'].upper()}"]
    if doc["verdict"] == "bug":
        w = doc["witness"]
        out.append(f"  {w['kind']} at {w['file']}:{w['line']}:{w['column']}: {w['message']} "
                   f"(found by {w['found_by']}; replay: {w['replay'].get('status')})")
        out.append(f"  decision vector ({len(w['decision_vector'])}): {w['decision_vector']}")
        out.append("  inputs: " + ", ".join(f"{i['origin']} = {value_text(i['value'])}" for i in w["inputs"]))
    elif doc["verdict"] == "pac-correct":
        out.append(f"  automaton of feasible decision vectors: {doc['automaton_states']} states")
        out.append(f"  guarantee: confidence delta = {doc['delta']:g} (error probability "
                   f"{doc['error_probability']:.3g}), epsilon = {doc['epsilon']:g}, over batches of "
                   f"{doc['distribution']['batch']} vectors from {doc['distribution']['strategy']}")
        if s["bug_search"]["batches"]:
            out.append(f"  bug search: {s['bug_search']['samples']} runs in {s['bug_search']['batches']} batches, "
                       "none failing (not part of the guarantee)")
    else:
        out.append(f"  {doc['reason']}")
    out.append(f"  membership queries {s['membership_queries']} ({s['membership_by_deduction']} deduced, "
               f"{s['membership_by_prefixes'] + s['membership_by_solver']} to the teacher, "
               f"{s['membership_by_solver']} followed on the program), "
               f"equivalence queries {s['equivalence_queries']} (and "
               f"{s['conjectures_refuted_by_earlier_samples']} conjectures refuted by earlier samples), "
               f"samples {s['samples']}, "
               f"solver calls {s['solver_calls']}, {s['time']['total']:.1f} s")
    return "\n".join(out)


def run_reuse(args) -> int:
    with Progress(enabled=not args.quiet) as progress:
        r = pac_reuse_file(args.file, args.model, args.property, relearn=not args.no_relearn, timeout=args.timeout,
                           include=args.include, define=dict(d.partition("=")[::2] for d in args.define or []),
                           units=args.unit, progress=progress.update)
    res, doc = r.result, r.doc
    if res is not None and res.counterexample is not None and r.program is not None:
        write_bug(args, r.program, res.counterexample, doc["data_model"])
    print(json_text(doc) if args.json else reuse_text(doc))
    return 0


def reuse_text(doc: dict, indent: str = "") -> str:
    out = [f"{indent}{doc['property']} ({doc['property_meaning']}) against the model {doc['model']} "
           f"({doc['model_states']} states): {doc['verdict'].upper()}"]
    w = doc["witness"]
    if doc["verdict"] == "holds":
        out.append(f"{indent}  with the model's guarantee: confidence delta = {doc['delta']:g}, epsilon = "
                   f"{doc['epsilon']:g}, over batches of {doc['distribution']['batch']} vectors from "
                   f"{doc['distribution']['strategy']}")
    elif w is not None:
        where = f" at {w['file']}:{w['line']}:{w['column']}: {w['message']}" if "file" in w else ""
        out.append(f"{indent}  decision vector ({len(w['decision_vector'])}): {w['decision_vector']}{where} "
                   f"(replay: {w['replay'].get('status')})")
        out.append(f"{indent}  inputs: " + ", ".join(f"{i['origin']} = {value_text(i['value'])}"
                                                    for i in w["inputs"]))
    if doc["reason"]:
        out.append(f"{indent}  {doc['reason']}")
    s = doc["stats"]
    out.append(f"{indent}  membership queries {s['membership_queries']}, solver calls {s['solver_calls']}, "
               f"{s['time']:.1f} s")
    new = doc.get("relearned")
    if new is not None:
        out.append(f"{indent}  learned again: {new['verdict']}" + (f", {new['automaton_states']} states"
                                                                   if new["automaton_states"] else ""))
        if new["property"] is not None:
            out.append(reuse_text(new["property"], indent + "  "))
    return "\n".join(out)
