"""The JSON document of `tracelearn check`."""

from __future__ import annotations

from .. import __version__
from ..analyses.check import CheckResult

SCHEMA_VERSION = "1.0"


def check_document(result: CheckResult, file: str, data_model: str, entry: str,
                   checks: frozenset[str], time_s: float, warnings: list[str],
                   loop_bounds: dict[str, int] | None = None) -> dict:
    cex = result.counterexample
    stats = result.stats.to_json()
    stats["time_s"] = round(time_s, 4)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "tracelearn", "version": __version__},
        "command": "check",
        "file": file,
        "data_model": data_model,
        "entry": entry,
        "checks": sorted(checks),
        "verdict": result.verdict,
        "proved_by": result.proved_by or None,
        "found_by": result.found_by or None,
        "bound": result.bound,
        "loop_bounds": dict(loop_bounds or {}),
        "reason": result.reason or None,
        "counterexample": cex.to_json() if cex is not None else None,
        "proof": result.proof.to_json() if result.proof is not None else None,
        "kinduction": result.kinduction.to_json() if result.kinduction is not None else None,
        "bug_search": result.search.to_json() if result.search is not None else None,
        "approximations": result.approximations,
        "assumptions": result.assumptions,
        "warnings": warnings,
        "stats": stats,
    }
