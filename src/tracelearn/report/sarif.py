"""SARIF 2.1.0: one result per counterexample, its trace as a codeFlow (what GitHub
code scanning shows step by step)."""

from __future__ import annotations

import os

from .. import __version__
from ..semantics.traces import Counterexample
from .trace_text import value_text

RULES = {
    "assertion": "An assertion can fail",
    "error-call": "An error function is reachable",
    "bounds": "An array index can be out of bounds",
    "pointer": "An invalid pointer can be dereferenced or freed",
    "div-by-zero": "An integer division by zero can happen",
}


def _location(file: str, line: int, col: int, text: str | None = None) -> dict:
    loc: dict = {"physicalLocation": {"artifactLocation": {"uri": _uri(file)},
                                      "region": {"startLine": max(line, 1), **({"startColumn": col} if col else {})}}}
    if text:
        loc["message"] = {"text": text}
    return loc


def _uri(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return rel.replace(os.sep, "/")


def sarif_document(cexs: list[Counterexample], verdict: str) -> dict:
    results = []
    for cex in cexs:
        flow = [{"location": _location(s.loc.file, s.loc.line, s.loc.col,
                                       f"{s.lhs} = {value_text(s.value)}" + (" (input)" if s.kind == "input" else "")),
                 "nestingLevel": 0}
                for s in cex.steps if s.kind in ("assign", "input") and not s.hidden]
        flow.append({"location": _location(cex.loc.file, cex.loc.line, cex.loc.col, cex.message), "nestingLevel": 0})
        results.append({
            "ruleId": cex.kind,
            "level": "error",
            "message": {"text": f"{cex.message} (counterexample of {cex.length} steps, "
                                f"replay: {cex.replay.get('status', 'not run')})"},
            "locations": [_location(cex.loc.file, cex.loc.line, cex.loc.col)],
            "codeFlows": [{"threadFlows": [{"locations": flow}]}],
            "properties": {"property": cex.prop_id, "minimized": cex.minimized,
                           "inputs": [i["value"] for i in cex.inputs]},
        })
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "tracelearn", "version": __version__,
                                "rules": [{"id": k, "shortDescription": {"text": v}} for k, v in RULES.items()]}},
            "results": results,
            "properties": {"verdict": verdict},
        }],
    }
