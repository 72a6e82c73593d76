"""`tracelearn learn-filter`: a symbolic transducer with lookback learned from a C
stream filter (Sigma*)."""

from __future__ import annotations

import argparse
import sys

from ..api.options import positive, seconds
from ..api.streams import array_code, learn_filter_file
from ..report.filter_doc import summary_text
from ..report.jsonout import dumps as json_text
from .outputs import preflight, write_output
from .progress import Progress

EPILOG = """\
The filter reads with tl_in() and tl_peek(k) (k elements ahead, a constant k >= 0;
lookahead is reduced to lookback), writes with tl_out(e), and may ask tl_eof()
(declared in <tracelearn.h>). A read at the end of the input stops it.
complete: true means the equivalence oracle proved the transducer equal to the filter
on every input; otherwise the reason says what is known (e.g. equal on every input
up to --max-depth elements)."""


def _nonneg(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {v}")
    return v


def add_parsers(sub) -> None:
    p = sub.add_parser("learn-filter", help="learn a stream filter as a symbolic transducer (Sigma*)",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="C source file")
    p.add_argument("--function", required=True, help="the filter function (no parameters)")
    p.add_argument("--lookback", type=_nonneg, help="window size k (default: what the runs show, at most 8)")
    p.add_argument("--element", default="char", metavar="char|int8|int16|int32",
                   help="the stream's element type (default char: signed 8 bits)")
    p.add_argument("--max-depth", type=positive,
                   help="check equivalence on inputs up to N elements only (default: prove it for all)")
    p.add_argument("--max-boundaries", type=positive, default=5000,
                   help="filter states the equivalence oracle explores (default 5000)")
    p.add_argument("--check", type=_nonneg, default=200,
                   help="random inputs on which to compare the result with the interpreter (default 200)")
    p.add_argument("--seed", type=int, default=0, help="seed of the --check inputs")
    p.add_argument("--columns", choices=["counterexamples", "paper"], default="counterexamples",
                   help="the table's first columns: none, columns come from separating inputs (default), or "
                        "every guard found, as Sigma* does (more runs)")
    p.add_argument("--compare", choices=["syntactic", "semantic"], default="syntactic",
                   help="table entries are equal when their outputs are the same text, as in Sigma* "
                        "(default), or the same function of the window where the step's guard holds (a solver "
                        "call per new output)")
    p.add_argument("--oracle", choices=["boundaries", "abstraction"], default="boundaries",
                   help="the equivalence oracle: the filter's own states explored beside the conjecture "
                        "(default), or Sigma*'s predicate abstraction of the filter, refined with weakest "
                        "preconditions of its spurious runs")
    p.add_argument("--timeout", type=seconds, default=300.0, help="seconds (default 300)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    p.add_argument("--dot", metavar="FILE", help="write the transducer as DOT")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--array-c", metavar="FILE",
                   help="write the proved transducer as C on arrays: FUNCTION_seq(in, n, out) and the data-parallel "
                        "FUNCTION_par(in, n, out, threads) (compile with -pthread)")
    p.add_argument("--data-model", default="LP64", choices=["ILP32", "LP64", "ilp32", "lp64"],
                   help="integer and pointer widths (default LP64)")
    p.add_argument("-I", dest="include", action="append", metavar="DIR", help="add an include directory")
    p.add_argument("-D", dest="define", action="append", metavar="NAME[=VALUE]", help="define a macro")
    p.set_defaults(run=run)


def run(args) -> int:
    for opt in ("dot", "html", "array_c"):
        preflight(getattr(args, opt), f"--{opt.replace('_', '-')}", [args.file])
    with Progress(enabled=not args.quiet) as progress:
        r = learn_filter_file(args.file, function=args.function, lookback=args.lookback, element=args.element,
                              max_depth=args.max_depth, max_boundaries=args.max_boundaries, check=args.check,
                              seed=args.seed, columns=args.columns, compare=args.compare, oracle=args.oracle,
                              timeout=args.timeout, data_model=args.data_model,
                              include=args.include,
                              define=dict(d.partition("=")[::2] for d in args.define or []),
                              progress=progress.update)
    doc = r.doc
    t = r.result.transducer
    if args.dot and t is not None:
        write_output(args.dot, t.to_dot(args.function), "--dot")
    if args.html and t is not None:
        from ..report.filter_html import filter_html
        write_output(args.html, filter_html(doc, t), "--html")
    print(json_text(doc) if args.json else summary_text(doc))
    if args.array_c:  # after the result, a warning when not written: --json's reader gets one document
        if r.result.transducer is None or not r.result.complete:
            print(f"tracelearn: warning: --array-c {args.array_c}: not written: the transducer is not proved "
                  f"equal to the filter ({r.result.reason or 'nothing learned'})", file=sys.stderr)
        else:
            write_output(args.array_c, array_code(r, args.function), "--array-c")
    return 0
