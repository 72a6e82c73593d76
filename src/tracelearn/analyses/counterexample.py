"""The counterexample analysis: minimize, explain, and the trace's decisions
(for witnesses), on the encoding that found the counterexample."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from ..semantics.traces import Counterexample
from ..semantics.waypoints import trace_waypoints
from .check import CheckResult
from .causes import Explanation, explain
from .minimize import MinimizeStats, minimize


@dataclass
class CexOptions:
    minimize: str = "none"  # none | length | values | all
    method: str = "optimal"  # optimal | greedy
    explain: bool = False
    causes_inputs_only: bool = False
    minimize_timeout_s: float = 60.0
    explain_timeout_s: float = 120.0


@dataclass
class CexAnalysis:
    cex: Counterexample
    model: z3.ModelRef | None
    minimize_stats: MinimizeStats | None
    explanation: Explanation | None

    def waypoints(self, result: CheckResult) -> list[tuple]:
        """The witness waypoints of the trace (see ``semantics.waypoints``)."""
        enc = result.encoding
        if enc is None or self.model is None:
            return []
        return trace_waypoints(enc.eq, self.model, self.cex.prop_id, enc.program.sources)


def analyze(result: CheckResult, checks: frozenset[str], opts: CexOptions) -> CexAnalysis:
    cex = result.counterexample
    assert cex is not None and result.encoding is not None
    model = result.model
    stats = None
    if opts.minimize != "none":
        m = minimize(result.encoding, cex, checks, opts.minimize, opts.method, opts.minimize_timeout_s)
        cex, model, stats = m.cex, m.model, m.stats
    elif model is not None:
        from .minimize import value_sum

        cex.value_sum = value_sum(result.encoding, model)
    expl = None
    if opts.explain and model is not None:
        expl = explain(result.encoding, model, cex.prop_id, checks, opts.causes_inputs_only, opts.explain_timeout_s)
    return CexAnalysis(cex, model, stats, expl)
