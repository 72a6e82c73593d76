"""`tracelearn filters`: properties of stream filters from their learned transducers
(equivalence, idempotence, commutativity, inverse), each "no" with a witness replayed
in the interpreter."""

from __future__ import annotations

import argparse

from ..api.options import positive, seconds
from ..api.streams import PROPERTIES, filter_property
from ..report.jsonout import dumps as json_text
from .progress import Progress

EPILOG = """\
equivalent F --with G: F and G write the same output on every input.
idempotent F: F applied twice equals F.
commute F --with G: G after F equals F after G.
inverse F --with G: G after F is the identity.
A composition is learned as a C pipeline: the first filter's learned transducer
feeding the second filter's code. Between two filters the stream carries C ints
(tl_out's type). holds is true only when every model was proved equal to its filter;
false only when the programs, run in the interpreter, confirm the witness."""


def add_parser(sub) -> None:
    p = sub.add_parser("filters", help="equivalence, idempotence, commutativity, inverse of stream filters",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("property", choices=list(PROPERTIES))
    p.add_argument("file", help="C source file of the filter(s)")
    p.add_argument("--function", required=True, help="the (first) filter function")
    p.add_argument("--with", dest="with_function", metavar="G", help="the second filter function")
    p.add_argument("--with-file", metavar="FILE2", help="the file of the second filter (default: FILE)")
    p.add_argument("--element", default="char", metavar="char|int8|int16|int32")
    p.add_argument("--max-depth", type=positive, help="learn each model only up to inputs of N elements")
    p.add_argument("--timeout", type=seconds, default=300.0, help="seconds (default 300)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    p.set_defaults(run=run)


def run(args) -> int:
    with Progress(enabled=not args.quiet) as progress:
        doc = filter_property(args.property, args.file, function=args.function, with_function=args.with_function,
                              with_file=args.with_file, element=args.element, max_depth=args.max_depth,
                              timeout=args.timeout, progress=progress.update)
    print(json_text(doc) if args.json else summary_text(doc))
    return 0


def summary_text(doc: dict) -> str:
    name = doc["property"]
    who = doc["function"] + (f", {doc['with']}" if doc["with"] else "")
    verdict = {True: "HOLDS", False: "DOES NOT HOLD", None: "UNKNOWN"}[doc["holds"]]
    out = [f"{name} ({who}): {verdict}"]
    if doc["reason"]:
        out.append(f"  {doc['reason']}")
    w = doc["witness"]
    if w is not None:
        out.append(f"  input {w['input']}:")
        out.append(f"    {' then '.join(w['left']['pipeline'])}: {w['left']['output']}")
        out.append(f"    {' then '.join(w['right']['pipeline'])}: {w['right']['output']}")
        out.append(f"  replayed in the interpreter: {w['replay']}")
    for m in doc["models"]:
        out.append(f"  model {m['filter']}: {m['states']} states, {'complete' if m['complete'] else m['reason']}")
    return "\n".join(out)
