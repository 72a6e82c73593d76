"""The JSON document of `tracelearn pac`."""

from __future__ import annotations

from ..analyses.pac.driver import PacResult
from .check_doc import SCHEMA_VERSION


def _bits(v: tuple[bool, ...] | None) -> str | None:
    return None if v is None else "".join("1" if b else "0" for b in v)


def pac_document(r: PacResult, file: str, data_model: str, options: dict) -> dict:
    o = r.options
    batches = r.pac.batches
    witness = None
    if r.counterexample is not None:
        witness = r.counterexample.to_json()
        witness["decision_vector"] = _bits(r.vector)
        witness["found_by"] = r.found_by
    a = r.automaton
    return {
        "schema_version": SCHEMA_VERSION,
        "command": "pac",
        "file": file,
        "data_model": data_model,
        "verdict": r.verdict,
        "reason": r.reason,
        "epsilon": o.epsilon,
        "delta": o.delta,
        "confidence": o.delta,
        "error_probability": round(r.error_probability, 12),
        "guarantee": ("with probability >= delta, a fresh batch of k vectors from this distribution holds "
                      "one outside the automaton with probability <= epsilon") if r.verdict == "pac-correct" else None,
        "distribution": {"strategy": o.strategy, "batch": o.batch, "seed": o.seed,
                         "max_decisions": o.max_decisions, "restart": "every batch",
                         "truncated_runs": r.sampler.truncated},
        "learner": o.learner,
        "decisions": {"per": "branch" if o.split_conditions else "source condition",
                      "branches": r.decisions},
        "witness": witness,
        "automaton": a.to_dict() if a is not None else None,
        "automaton_states": a.num_states if a is not None else None,
        "stats": {
            "membership_queries": r.queries.membership_asked,
            "membership_by_cache": r.queries.by_cache,
            "membership_by_solver": r.queries.by_teacher,
            "equivalence_queries": r.queries.equivalence,
            "sampling_equivalence_queries": r.pac.equivalence,
            "batches_per_equivalence_query": batches,
            "emptiness_tests": r.pac.emptiness_tests,
            "emptiness_by_over_approximation": r.pac.emptiness_by_over_approximation,
            "error_word_counterexamples": r.pac.error_words,
            "sample_counterexamples": r.pac.sample_counterexamples,
            "samples": r.sampler.samples,
            "batches": r.sampler.batches,
            "flips_tried": r.sampler.flips_tried,
            "flips_feasible": r.sampler.flips_feasible,
            "solver_calls": r.solver_calls,
            "conjectures": r.conjectures,
            "time": {"total": r.time, "membership": r.pac.time_membership,
                     "emptiness": r.pac.time_emptiness, "sampling": r.pac.time_sampling},
        },
        "options": options,
    }
