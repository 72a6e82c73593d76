"""The JSON document of `tracelearn pac`."""

from __future__ import annotations

from ..analyses.pac.driver import PacResult
from ..analyses.pac.reuse import ReuseResult
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
        witness["decision_sites"] = r.vector_sites  # each letter's decision (file:line:col), None: not known
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
                         "start": "uniform" if o.strategy == "random-input" else o.start,
                         "max_decisions": o.max_decisions, "restart": "every batch",
                         "truncated_runs": r.sampler.truncated},
        "learner": o.learner,
        "decisions": {"per": "branch" if o.split_conditions else "source condition",
                      "branches": r.decisions, "ids": r.decision_ids},
        "witness": witness,
        "automaton": a.to_dict() if a is not None else None,
        "automaton_states": a.num_states if a is not None else None,
        "stats": {
            "membership_queries": r.queries.membership_asked,
            "membership_by_cache": r.queries.by_cache,
            "membership_by_deduction": r.queries.by_deduction,
            "membership_by_prefixes": r.queries.by_precheck,
            "membership_by_solver": r.queries.by_teacher,
            "membership_solver_checked": r.pac.membership_checked,
            "prefix_probes": r.pac.prefix_probes,
            "equivalence_queries": r.queries.equivalence,
            "sampling_equivalence_queries": r.pac.equivalence,
            "conjectures_refuted_by_earlier_samples": r.queries.equivalence_by_memory,
            "batches_per_equivalence_query": batches,
            "emptiness_tests": r.pac.emptiness_tests,
            "emptiness_by_over_approximation": r.pac.emptiness_by_over_approximation,
            "error_word_counterexamples": r.pac.error_words,
            "sample_counterexamples": r.pac.sample_counterexamples,
            "samples": r.sampler.samples,
            "batches": r.sampler.batches,
            "flips_tried": r.sampler.flips_tried,
            "flips_feasible": r.sampler.flips_feasible,
            "flips_known_infeasible": r.sampler.flips_known_infeasible,
            "flips_past_fixed_inputs": r.sampler.flips_past_fixed_inputs,
            "flips_remembered": r.sampler.flips_remembered,
            "runs": r.sampler.runs,
            "runs_remembered": r.sampler.runs_remembered,
            "solver_calls": r.solver_calls,
            "conjectures": r.conjectures,
            "bug_search": {"every": o.bug_search, "batches": r.pac.search_batches, "samples": r.search.samples,
                           "flips_tried": r.search.flips_tried, "flips_toward_error": r.search.flips_toward,
                           "solver_calls": r.search.solver_calls,
                           "refutations_final_over_integers": r.search.refutations_final_over_integers},
            "time": {"total": r.time, "membership": r.pac.time_membership,
                     "emptiness": r.pac.time_emptiness, "sampling": r.pac.time_sampling},
        },
        "options": options,
    }


def pac_reuse_document(r: ReuseResult | None, file: str, model: str, saved: dict, data_model: str) -> dict:
    """``tracelearn pac FILE --model M.json --property P --json``: the property against
    a saved model (Pac-Man, Sec. 12)."""
    assert r is not None
    witness = None
    if r.counterexample is not None:
        witness = r.counterexample.to_json()
    elif r.verdict == "violated":
        witness = {"inputs": r.inputs, "replay": r.replay}
    if witness is not None:
        witness["decision_vector"] = _bits(r.vector)
        witness["decision_sites"] = r.vector_sites
    doc = {
        "schema_version": SCHEMA_VERSION,
        "command": "pac",
        "mode": "model reuse",
        "file": file,
        "data_model": data_model,
        "model": model,
        "property": r.prop.text,
        "property_meaning": r.prop.describe(),
        "verdict": r.verdict,
        "reason": r.reason,
        "epsilon": saved["epsilon"],
        "delta": saved["delta"],
        "confidence": saved["delta"],
        "error_probability": saved["error_probability"],
        "guarantee": ("the model's: with probability >= delta, a fresh batch of k vectors from its distribution "
                      "holds one outside the model with probability <= epsilon") if r.verdict == "holds" else None,
        "distribution": saved["distribution"],
        "model_states": saved["automaton_states"],
        "error_nodes": r.error_nodes if r.prop.is_reachability else None,
        "refuting_vector": _bits(r.vector) if r.verdict == "model-refuted" else None,
        "witness": witness,
        "stats": {"membership_queries": r.membership, "solver_calls": r.solver_calls, "time": r.time},
        "relearned": None,
    }
    if r.relearned is not None:
        new = pac_document(r.relearned, file, data_model, saved["options"])
        doc["relearned"] = {"verdict": new["verdict"], "reason": new["reason"], "automaton": new["automaton"],
                            "automaton_states": new["automaton_states"], "witness": new["witness"],
                            "stats": new["stats"],
                            "property": pac_reuse_document(r.then, file, "(learned again)", new, data_model)
                            if r.then is not None else None}
    return doc
