"""`tracelearn demo`: the main job on a built-in example from the papers."""

from __future__ import annotations

import argparse
from importlib import resources

from . import check_cmd


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="run on a built-in example (sort.c of Groce & Kroening, Fig. 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def example_path(name: str) -> str:
    return str(resources.files("tracelearn") / "examples" / name)


def run(args) -> int:
    path = example_path("sort.c")
    print(f"tracelearn demo: checking {path} --entry f (Fig. 1 of 'Making the Most of BMC Counterexamples')\n")
    ns = argparse.Namespace(file=path, bound=None, unwind_loop=None, timeout=60.0, checks=None,
                            json=args.json, full_trace=False, data_model="LP64", include=None,
                            define=None, entry="f",
                            minimize="all", method="optimal", explain=True, causes_inputs_only=True,
                            explain_timeout=60.0, sarif=None, witness=None, playback=None)
    return check_cmd.run(ns)
