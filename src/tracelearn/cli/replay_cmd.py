"""`tracelearn replay`: run the stored witnesses of an explain report in the interpreter."""

from __future__ import annotations

import io
import json
from pathlib import Path

from ..analyses.error_language.alphabet import instrument
from ..errors import OptionError
from ..frontend.lower import load_program
from ..semantics.inputs import InputSource
from ..semantics.interpreter import Interpreter, InterpOptions
from ..api.options import explain_options, parse_defines


def add_parsers(sub) -> None:
    p = sub.add_parser("replay", help="replay the witnesses of an `explain --json` report in the interpreter")
    p.add_argument("report", help="the JSON report of tracelearn explain")
    p.add_argument("--word", metavar="A,B,...", help="only the witness of this word")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        doc = json.loads(Path(args.report).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise OptionError(f"cannot read the report {args.report}: {e}") from None
    if not isinstance(doc, dict) or doc.get("command") != "explain" or not _well_formed(doc):
        raise OptionError(f"{args.report} is not a report of tracelearn explain --json")
    o = doc["options"]
    ns = _Namespace(o)
    program = load_program(doc["file"], (o.get("data_model") or "LP64").upper(), o.get("include"),
                           parse_defines(o.get("define")), entry=o.get("entry") or "main", units=o.get("unit") or ())
    inst = instrument(program, explain_options(ns).alphabet)
    it = Interpreter(inst.program, InterpOptions(stdout=io.BytesIO(), stderr=io.BytesIO()))
    want = tuple(args.word.split(",")) if args.word else None
    failures = 0
    shown = 0
    for wit in doc["witnesses"]:
        word = tuple(wit["word"])
        if want is not None and word != want:
            continue
        shown += 1
        r = it.run(InputSource(list(wit["inputs"])))
        got = tuple(e for e, _ in r.events) + ((inst.final,) if r.status == "violation" else ())
        ok = r.status == "violation" and inst.is_target(r.violation.prop_id, r.violation.kind) and got == word
        failures += not ok
        where = f" at {r.violation.loc}" if r.violation else ""
        print(f"{' . '.join(word)}: inputs {wit['inputs']} -> {' . '.join(got) or '(no events)'}"
              f" ({r.status}{where}) {'OK' if ok else 'MISMATCH'}")
    if want is not None and shown == 0:
        raise OptionError(f"no witness for the word {args.word} in the report")
    print(f"{shown - failures}/{shown} witnesses replayed")
    return 0 if failures == 0 else 1


def _well_formed(doc: dict) -> bool:
    """The fields replay reads, with their types (a hand-edited or truncated report
    is refused in one line instead of failing half way)."""
    wits = doc.get("witnesses")
    return (isinstance(doc.get("options"), dict) and isinstance(doc.get("file"), str)
            and isinstance(wits, list)
            and all(isinstance(w, dict) and isinstance(w.get("word"), list) and isinstance(w.get("inputs"), list)
                    for w in wits))


class _Namespace:
    def __init__(self, o: dict) -> None:
        self.letters = o.get("letters")
        self.alphabet = o.get("alphabet") or "functions"
        self.assertion = o.get("assertion")
        self.target = o.get("target")
        self.program = o.get("program")
        self.bound = o.get("bound")
        self.bwl = o.get("bwl")
        self.bmax = o.get("bmax") or 4
        self.bwl_max = o.get("bwl_max") or 12
        self.learner = o.get("learner") or "lstar"
        self.lazy = o.get("lazy", True)
        self.timeout = 600.0
        self.unwind_loop = o.get("unwind_loop")
        self.semantics = o.get("semantics") or "c"
