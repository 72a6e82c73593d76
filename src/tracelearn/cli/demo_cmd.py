"""`tracelearn demo`: the main job on built-in examples from the papers."""

from __future__ import annotations

from importlib import resources

from . import check_cmd, explain_cmd


def add_parsers(sub) -> None:
    p = sub.add_parser("demo", help="learn the language of error of Fig. 2 of the pv paper, then minimise and "
                                    "explain the counterexample of sort.c (Groce & Kroening)")
    p.add_argument("--html", default="tracelearn-demo.html", help="where to write the report "
                                                                   "(default tracelearn-demo.html)")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    p.set_defaults(run=run)


def example_path(name: str) -> str:
    return str(resources.files("tracelearn") / "examples" / name)


def run(args) -> int:
    fig2 = example_path("fig2.c")
    print(f"== tracelearn explain {fig2} --bound 4 --max-word-length 4 --html {args.html}")
    print("   (Fig. 2 of 'Learning the Language of Error': the learned automaton is Fig. 5c)\n")
    ns = _parsed(["explain", fig2, "--bound", "4", "--max-word-length", "4", "--timeout", "120",
                  "--html", args.html] + (["--quiet"] if args.quiet else []))
    explain_cmd.run(ns)
    print(f"\nReport written to {args.html}\n")
    sort = example_path("sort.c")
    print(f"== tracelearn check {sort} --entry f --minimize all --explain --causes-inputs-only")
    print("   (Fig. 1 of 'Making the Most of BMC Counterexamples': Figs. 3 and 6)\n")
    ns = _parsed(["check", sort, "--entry", "f", "--minimize", "all", "--explain", "--causes-inputs-only",
                  "--explain-timeout", "60"] + (["--quiet"] if args.quiet else []))
    return check_cmd.run(ns)


def _parsed(argv: list[str]):
    """The commands' own parser: the demo runs them exactly as a user would."""
    from .main import build_parser

    return build_parser(argv[0]).parse_args(argv)
