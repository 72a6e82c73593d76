"""`tracelearn filters`: properties of stream filters from their learned transducers
(equivalence, idempotence, commutativity, inverse), each "no" with a witness replayed
in the interpreter."""

from __future__ import annotations

import argparse
import codecs
import sys

from ..api.options import count, positive, seconds
from ..api.filter_properties import PROPERTIES, filter_never_writes, filter_property
from ..api.fusion import fuse_filters
from ..errors import OptionError
from ..report.jsonout import dumps as json_text
from .progress import Progress

EPILOG = """\
equivalent F --with G: F and G write the same output on every input.
idempotent F: F applied twice equals F.
commute F --with G: G after F equals F after G.
inverse F --with G: G after F is the identity.
never-writes F --text S (or --values V,V,...): no input makes F write S, its
elements consecutive in the output (output inclusion: the pre-image of the outputs
holding S is empty); else a shortest input that does. --text takes C escapes
(\\n, \\x3c, \\\\); its bytes are the values a char filter writes (signed).
Two transducers are compared on pairs of runs, the outputs one has written and the
other not yet kept as terms: a filter that writes an element a step later than
another is still equal to it. A composition is the two learned transducers composed;
where that cannot be (the second has no transducer of its own, or the first writes
ints outside the second's element type: between two filters the stream carries C
ints, tl_out's type) it is learned as a C pipeline, the first filter's transducer
feeding the second filter's code. holds is true only when every model was proved
equal to its filter; false only when the programs, run in the interpreter, confirm
the witness."""


def add_parsers(sub) -> None:
    p = sub.add_parser("filters", help="equivalence, idempotence, commutativity, inverse, output inclusion of stream "
                                       "filters",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("property", choices=list(PROPERTIES) + ["never-writes"])
    p.add_argument("file", help="C source file of the filter(s)")
    p.add_argument("--function", required=True, help="the (first) filter function")
    p.add_argument("--with", dest="with_function", metavar="G", help="the second filter function")
    p.add_argument("--with-file", metavar="FILE2", help="the file of the second filter (default: FILE)")
    p.add_argument("--text", metavar="S", help="never-writes: the output sequence, as text (C escapes)")
    p.add_argument("--values", metavar="V,V,...", help="never-writes: the output sequence, as integers")
    p.add_argument("--element", default="char", metavar="char|int8|int16|int32")
    p.add_argument("--max-depth", type=positive, help="learn each model only up to inputs of N elements")
    p.add_argument("--timeout", type=seconds, default=300.0, help="seconds (default 300)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    p.set_defaults(run=run)
    f = sub.add_parser("fuse", help="fuse two stream filters into one C filter (their transducers composed, "
                                      "or the pipeline learned)")
    f.add_argument("file", help="C source file of the filter(s)")
    f.add_argument("--function", required=True, help="the first filter")
    f.add_argument("--with", dest="with_function", required=True, metavar="G", help="the filter after it")
    f.add_argument("--with-file", metavar="FILE2", help="the file of the second filter (default: FILE)")
    f.add_argument("--reorder", action="store_true",
                   help="fuse the pipeline the other way round (F after G), only once F and G are proved to commute")
    f.add_argument("-o", "--output", metavar="OUT.c", help="write the fused filter here")
    f.add_argument("--name", default="fused", help="the fused filter's function name (default fused)")
    f.add_argument("--element", default="char", metavar="char|int8|int16|int32")
    f.add_argument("--check", type=count, default=1000,
                   help="random inputs on which the fused filter is compared with the pipeline (default 1000)")
    f.add_argument("--timeout", type=seconds, default=300.0, help="seconds (default 300)")
    f.add_argument("--json", action="store_true", help="print one JSON object")
    f.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    f.set_defaults(run=run_fuse)


def run_fuse(args) -> int:
    from .outputs import preflight
    preflight(args.output, "--output", [args.file] + ([args.with_file] if args.with_file else []))
    with Progress(enabled=not args.quiet) as progress:
        doc, text = fuse_filters(args.file, function=args.function, with_function=args.with_function,
                                 with_file=args.with_file, output=args.output, name=args.name,
                                 element=args.element, check=args.check, timeout=args.timeout,
                                 reorder=args.reorder, progress=progress.update)
    if args.json:
        print(json_text(doc))
        _not_written(args, doc)
        return 0
    head = "COMPLETE" if doc["complete"] else "INCOMPLETE"
    print(f"fuse {doc['function']} then {doc['with']}: {head} ({doc['reason']})")
    ro = doc["reorder"]
    if ro is not None and ro["holds"]:
        print(f"  reordered: {doc['with']} and {doc['function']} are proved to commute")
    elif ro is not None and ro["witness"] is not None:
        w = ro["witness"]
        print(f"  input {w['input']}: {' then '.join(w['left']['pipeline'])} writes {w['left']['output']}, "
              f"{' then '.join(w['right']['pipeline'])} writes {w['right']['output']}")
    if doc["transducer"]:
        print(f"  fused transducer: {doc['transducer']['states']} states, "
              f"{len(doc['transducer']['transitions'])} transitions, by {doc['composition']}")
    d = doc["differential"]
    if d is not None:
        print(f"  fused filter against the pipeline on {d['inputs']} inputs (interpreter): "
              + ("all agree" if d["disagreement"] is None else f"DISAGREE on {d['disagreement']['input']}"))
        if d["failed_runs"]:
            f = d["first_failed_run"]
            print(f"  {d['failed_runs']} of them fail in the filters' code (first: {f['input']}: {f['error']})")
    if doc["output"]:
        print(f"  written to {args.output}")
    elif text and not args.output and doc["complete"]:
        print(text)
    elif text and not args.output:
        # (as -o: an unproved fused filter may differ from the pipeline where the check did not look)
        print("  the fused C is not printed: it is not proved equal to the pipeline")
    _not_written(args, doc)
    return 0


def _not_written(args, doc: dict) -> None:
    if args.output and not doc["output"]:
        print(f"tracelearn: warning: --output {args.output}: not written: the fused filter is not proved equal "
              f"to the pipeline ({doc['reason'] or 'nothing learned'})", file=sys.stderr)


def sequence_of(args) -> list[int]:
    """The sequence of ``never-writes``: ``--text`` (C escapes; its bytes as a char
    filter writes them, signed) or ``--values``."""
    if (args.text is None) == (args.values is None):
        raise OptionError("never-writes takes the sequence once: --text S or --values V,V,...")
    if args.values is not None:
        try:
            return [int(v, 0) for v in args.values.split(",")]
        except ValueError:
            raise OptionError(f"--values {args.values!r}: integers separated by commas") from None
    try:
        data = codecs.escape_decode(args.text.encode("utf-8"))[0]
    except ValueError as e:
        raise OptionError(f"--text {args.text!r}: {e}") from None
    return [b - 256 if b >= 128 else b for b in data]


def run(args) -> int:
    if args.property == "never-writes":
        if args.with_function or args.with_file:
            raise OptionError("never-writes is a property of one filter: no --with")
        seq = sequence_of(args)
        with Progress(enabled=not args.quiet) as progress:
            doc = filter_never_writes(args.file, function=args.function, sequence=seq, element=args.element,
                                      max_depth=args.max_depth, timeout=args.timeout, progress=progress.update)
        print(json_text(doc) if args.json else summary_text(doc))
        return 0
    if args.text is not None or args.values is not None:
        raise OptionError("--text and --values are never-writes' sequence")
    with Progress(enabled=not args.quiet) as progress:
        doc = filter_property(args.property, args.file, function=args.function, with_function=args.with_function,
                              with_file=args.with_file, element=args.element, max_depth=args.max_depth,
                              timeout=args.timeout, progress=progress.update)
    print(json_text(doc) if args.json else summary_text(doc))
    return 0


def summary_text(doc: dict) -> str:
    """The verdict of a property (never-writes' too), its witness and models, as lines."""
    name = doc["property"]
    who = doc["function"] + (f", {doc['with']}" if doc.get("with") else "")
    verdict = {True: "HOLDS", False: "DOES NOT HOLD", None: "UNKNOWN"}[doc["holds"]]
    out = [f"{name}{' ' + str(doc['sequence']) if 'sequence' in doc else ''} ({who}): {verdict}"]
    if doc["reason"]:
        out.append(f"  {doc['reason']}")
    w = doc["witness"]
    if w is not None and "left" in w:
        out.append(f"  input {w['input']}:")
        out.append(f"    {' then '.join(w['left']['pipeline'])}: {w['left']['output']}")
        out.append(f"    {' then '.join(w['right']['pipeline'])}: {w['right']['output']}")
    elif w is not None:
        out.append(f"  input {w['input']}: output {w['output']}"
                   + (f", the sequence at {w['at']}" if w["at"] is not None else ""))
    if w is not None:
        out.append(f"  replayed in the interpreter: {w['replay']}")
    for m in doc["models"]:
        out.append(f"  model {m['filter']}: {m['states']} states, {'complete' if m['complete'] else m['reason']}")
    for c in doc.get("compositions", []):
        out.append(f"  {c['composition']}: {c['states']} states, by {c['by']}")
    return "\n".join(out)
