"""`tracelearn demo`: the main job on built-in examples from the papers."""

from __future__ import annotations

import argparse
from importlib import resources

from . import check_cmd, explain_cmd


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="learn the language of error of Fig. 2 of the pv paper, then minimise and "
                                    "explain the counterexample of sort.c (Groce & Kroening)")
    p.add_argument("--html", default="tracelearn-demo.html", help="where to write the report "
                                                                   "(default tracelearn-demo.html)")
    p.set_defaults(run=run)


def example_path(name: str) -> str:
    return str(resources.files("tracelearn") / "examples" / name)


def run(args) -> int:
    fig2 = example_path("fig2.c")
    print(f"== tracelearn explain {fig2} --bound 4 --max-word-length 4 --html {args.html}")
    print("   (Fig. 2 of 'Learning the Language of Error': the learned automaton is Fig. 5c)\n")
    ns = argparse.Namespace(file=fig2, letters=None, alphabet="functions", assertion=None, program=None,
                            bound=4, bwl=4, bmax=4, bwl_max=12, unwind_loop=None, learner="lstar", lazy=True,
                            timeout=120.0, semantics="c", json=False, dot=None, svg=None, html=args.html, data_model="LP64",
                            include=None, define=None, entry="main")
    explain_cmd.run(ns)
    print(f"\nReport written to {args.html}\n")
    sort = example_path("sort.c")
    print(f"== tracelearn check {sort} --entry f --minimize all --explain --causes-inputs-only")
    print("   (Fig. 1 of 'Making the Most of BMC Counterexamples': Figs. 3 and 6)\n")
    ns = argparse.Namespace(file=sort, bound=None, unwind_loop=None, timeout=60.0, checks=None,
                            json=False, full_trace=False, data_model="LP64", include=None,
                            define=None, entry="f", minimize="all", method="optimal", explain=True,
                            causes_inputs_only=True, explain_timeout=60.0, sarif=None, witness=None, playback=None)
    return check_cmd.run(ns)
