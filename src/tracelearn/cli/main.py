"""The `tracelearn` command."""

from __future__ import annotations

import importlib
import json
import os
import sys

from .. import __version__
from ..errors import TracelearnError
from .options import ArgumentsRefused, Parser

# Each command's module, in the order `tracelearn --help` lists them
COMMANDS = {"demo": "demo_cmd", "explain": "explain_cmd", "check": "check_cmd", "pac": "pac_cmd",
            "learn-filter": "learn_filter_cmd", "filters": "filters_cmd", "fuse": "filters_cmd",
            "run": "run_cmd", "replay": "replay_cmd", "batch": "batch_cmd", "validate": "validate_cmd",
            "diff": "versions_cmd", "merge": "versions_cmd"}


def build_parser(command: str | None = None) -> Parser:
    """The command line's parser; with ``command`` (one of ``COMMANDS``), only that
    command's module is imported (the analyses of the others are not loaded)."""
    p = Parser(prog="tracelearn", description="Learn automata models of C programs; check and explain errors.")
    p.add_argument("--version", action="version", version=f"tracelearn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    names = [COMMANDS[command]] if command in COMMANDS else list(COMMANDS.values())
    for name in dict.fromkeys(names):
        importlib.import_module(f".{name}", __package__).add_parsers(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    program_args = None
    if argv[:1] == ["run"] and "--" in argv:
        # what follows `--` is the program's argv, wherever tracelearn's options stand
        # (argparse gives a `nargs="*"` positional the empty list before an option)
        k = argv.index("--")
        argv, program_args = argv[:k], argv[k + 1:]
    try:
        args = build_parser(argv[0] if argv else None).parse_args(argv)
    except ArgumentsRefused as e:
        if "--json" in argv:  # a reader of --json gets a document either way
            print(json.dumps({"command": argv[0] if argv and argv[0] in COMMANDS else None,
                              "error": {"kind": "OptionError", "message": e.message, "where": None}}))
        raise
    if program_args is not None:
        args.args = list(args.args) + program_args
    try:
        return args.run(args)
    except TracelearnError as e:
        print(f"tracelearn: error: {e}", file=sys.stderr)
        if getattr(args, "json", False):  # a reader of --json gets a document either way
            print(json.dumps({"command": args.command, "error": {
                "kind": type(e).__name__, "message": e.message, "where": e.where}}))
        return 2
    except BrokenPipeError:  # output piped into a command that stopped reading
        return 0
    except KeyboardInterrupt:
        print("tracelearn: interrupted (no verdict)", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: one line unless debugging
        if os.environ.get("TRACELEARN_DEBUG"):
            raise
        print(f"tracelearn: internal error: {type(e).__name__}: {e} "
              f"(set TRACELEARN_DEBUG=1 for a traceback; please report it)", file=sys.stderr)
        return 70


def console_main() -> None:
    """The `tracelearn` command: exit as soon as the output is written (tearing down
    the data of a large analysis, or of one stopped by its time limit while its
    worker thread still runs, takes seconds and is of no use to anyone)."""
    # z3 takes SIGINT over while some of its calls run (simplify, tactics) and only
    # cancels them: the Ctrl-C would never reach Python, which stops the command
    # (semantics/solving.py). The process is ours: z3 keeps its hands off. (Imported
    # here: options are parsed, and --help printed, without loading z3.)
    import z3
    z3.set_param("ctrl_c", False)
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    console_main()
