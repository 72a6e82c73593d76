"""The JSON document of `tracelearn learn-filter`, and its text summary."""

from __future__ import annotations

from ..analyses.streams.driver import LearnResult
from ..semantics.strategies.abstract_steps import predicate_text
from .check_doc import SCHEMA_VERSION


def filter_document(r: LearnResult, file: str, data_model: str, options: dict, differential: dict | None) -> dict:
    t = r.transducer
    return {
        "schema_version": SCHEMA_VERSION,
        "command": "learn-filter",
        "file": file,
        "function": options["function"],
        "data_model": data_model,
        "element": options["element"],
        "complete": r.complete,
        "reason": r.reason,
        "guarantee": ("the transducer equals the filter on every input (proved)" if r.complete else
                      f"the transducer equals the filter on every input of at most {r.exact_up_to} elements "
                      "(proved)" if r.exact_up_to is not None else None),
        "exact_up_to": r.exact_up_to,
        # why a counter was not taken as one value (learning started again without counters)
        "counters_off": r.counters_off or None,
        "transducer": t.to_json() if t is not None else None,
        "lookback": r.lookback,
        "refinements": [x.to_json() for x in r.refinements],
        # the "abstraction" oracle's spurious separating inputs and the predicates each added
        "abstraction_refinements": ([{"input": a.input, "predicates": a.predicates} for a in r.abstraction.refinements]
                                    if r.abstraction is not None else None),
        "predicates": ([predicate_text(p) for p in r.abstraction.abstraction.predicates] if r.abstraction is not None
                       else None),
        "differential": differential,
        "options": options,
        "stats": r.stats(),
    }


def summary_text(doc: dict) -> str:
    t = doc["transducer"]
    s = doc["stats"]
    head = "COMPLETE" if doc["complete"] else "INCOMPLETE"
    out = [f"learn-filter {doc['file']} --function {doc['function']}: {head}"]
    out.append(f"  {doc['reason']}")
    if doc.get("counters_off"):
        out.append(f"  counters kept apart value by value: {doc['counters_off']}")
    if t is not None:
        out.append(f"  transducer: {t['states']} states, {len(t['transitions'])} transitions, "
                   f"lookback {t['lookback']}, {doc['element']} elements"
                   + (f", initial output {t['initial_output']}" if t["initial_output"] else ""))
        for m in t["transitions"][:40]:
            outs = m["outputs_text"] or "ε"
            out.append(f"    q{m['from']} --[{m['guard']}] / {outs}--> q{m['to']}")
        if len(t["transitions"]) > 40:
            out.append(f"    ... {len(t['transitions']) - 40} more (see --json or --dot)")
        for f in t["final"]:
            if f["outputs"]:
                out.append(f"    q{f['state']} at the end [{f['guard']}] / {f['outputs_text']}")
    for x in doc["refinements"]:
        out.append(f"  separating input {x['input']}: program {x['program_output']}, "
                   f"conjecture ({x['conjecture_states']} states) {x['conjecture_output']}")
    for a in doc.get("abstraction_refinements") or []:
        out.append(f"  spurious input {a['input']} (the abstraction's run, not the filter's): predicates "
                   f"{', '.join(a['predicates'])} added")
    d = doc["differential"]
    if d is not None:
        bad = d["disagreement"]
        verdict = ("all agree" if bad is None else
                   f"differ on {bad['input']} ({len(bad['input'])} elements: past the proved length, as a wrapped "
                   "counter may make it)" if bad.get("beyond_proved_length") else f"DISAGREE on {bad['input']}")
        out.append(f"  checked against the interpreter on {d['inputs']} inputs: {verdict}")
    out.append(f"  membership queries {s['membership_queries']} ({s['runs']} runs), equivalence queries "
               f"{s['equivalence_queries']}, conjecture refinements {s['conjecture_refinements']}, "
               + (f"abstraction refinements {s['abstraction_refinements']} ({s['predicates']} predicates), "
                  if doc.get("predicates") is not None else "") +
               f"boundaries {s['boundaries_explored']}, solver calls {s['solver_calls']}, {s['time']:.1f} s")
    return "\n".join(out)


