"""The JSON document of `tracelearn explain` (and one automaton of diff/merge)."""

from __future__ import annotations

from .. import __version__
from ..analyses.error_language.driver import ExplainResult
from ..automata.dfa import DFA

SCHEMA_VERSION = "1.0"


def automaton_json(dfa: DFA) -> dict:
    return {
        "states": list(dfa.states),
        "initial": dfa.initial,
        "accepting": sorted(dfa.accepting),
        "transitions": [{"from": s, "letter": a, "to": t} for (s, a), t in
                        sorted(dfa.transitions.items(), key=lambda kv: (kv[0][0], str(kv[0][1]), kv[1]))],
    }


def inputs_json(values: list) -> list:
    return [v.hex() if isinstance(v, bytes) else v for v in values]


def explain_document(r: ExplainResult, file: str, options: dict) -> dict:
    stats = r.query_stats.to_dict()
    stats.pop("teacher", None)
    t = r.teacher_stats
    stats.update({
        "membership_by_solver": t.solver_members,
        "batch_queries_by_solver": t.batch_queries,
        "solver_calls": t.solver_calls,
        "solver_time_s": round(t.solver_time_s, 4),
        "encoding_time_s": round(t.encode_time_s, 4),
        "accepted_words_verified": t.spurious_checked,
        "lazy_fixes": r.query_stats.guesses_fixed,
        "lazy_restarts": r.query_stats.restarts,
        "time_s": round(r.time_s, 4),
    })
    if options.get("engine") == "paths":
        stats.update({"paths": t.paths, "paths_cut_by_bound": t.paths_cut})
    asked = max(r.query_stats.membership_asked, 1)
    stats["precheck_share"] = round(r.query_stats.by_precheck / asked, 4)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "tracelearn", "version": __version__},
        "command": "explain",
        "file": file,
        "mode": r.mode,
        "options": options,
        "alphabet": [l.name for l in r.letters] + [r.inst.final],
        "letters": [l.to_json() for l in r.letters] + [{"name": r.inst.final, "kind": "final",
                                                         "targets": sorted(r.inst.targets)}],
        "bounds": {"b": r.b, "bwl": r.bwl, "converged": r.converged,
                   "runs": [{"b": x.b, "bwl": x.bwl, "states": x.states, "changed": x.changed,
                             "edges_from_accepting": x.back_edges, "membership_queries": x.membership,
                             "solver_calls": x.solver_calls, "time_s": round(x.time_s, 4)} for x in r.runs]},
        "automaton": automaton_json(r.automaton),
        "dominating_letters": list(r.dominating),
        "dominating_edges": [{"from": s, "letter": a, "to": t} for s, a, t in r.dominating_edges],
        "doomed_states": sorted(r.doomed),
        "witnesses": [{"word": list(w), "inputs": inputs_json(v), "origins": [i.get("origin") for i in
                                                                              r.witness_records.get(w, [])]}
                      for w, v in r.witnesses.items()],
        "edge_witnesses": [{"from": e.source, "letter": e.letter, "to": e.target, "word": list(e.word),
                            "inputs": inputs_json(e.inputs)} for e in r.edge_witnesses],
        "notes": r.notes,
        "incomplete": r.incomplete,
        "stats": stats,
    }
