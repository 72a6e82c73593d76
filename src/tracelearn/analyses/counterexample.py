"""The counterexample analysis: minimize, explain, and the trace's decisions
(for witnesses), on the encoding that found the counterexample."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from ..semantics.bmc import CheckResult, Counterexample
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
        """(type, file, line, column, function, constraint, format) in trace order: the
        values nondet calls return, and the branches taken."""
        enc = result.encoding
        if enc is None or self.model is None:
            return []
        from ..semantics.bmc import model_value

        out = []
        m = self.model
        argv: dict[str, object] = {}  # argc/argv, stated at main's first statement
        argv_loc = None
        for s in enc.eq.steps:
            if not z3.is_true(m.eval(s.guard, model_completion=True)):
                continue
            if s.kind == "input" and (s.message == "argc" or s.message.startswith("argv[")):
                argv[s.message] = model_value(m, s.ssa, s.type)
                argv_loc = s.loc
                continue
            if argv and s.kind in ("assign", "decision", "input", "check") and s.loc != argv_loc:
                out.append(("assumption", s.loc.file, s.loc.line, s.loc.col, s.function,
                            _argv_constraint(argv), "c_expression"))
                argv = {}
            if s.kind == "check" and s.prop_id == self.cex.prop_id and s.violation is not None \
                    and z3.is_true(m.eval(s.violation, model_completion=True)):
                break
            if s.kind == "input" and s.message.endswith("()") and " " not in s.message and s.type is not None:
                v = model_value(m, s.ssa, s.type)
                if isinstance(v, int):
                    out.append(("function_return", s.loc.file, s.loc.line, s.loc.col, s.function,
                                f"\\result == {v}", "acsl_expression"))
            # A branching waypoint names a whole condition at its keyword: only conditions
            # that && || ! did not split into several decisions qualify.
            if s.kind == "decision" and s.cond is not None and s.atomic and s.keyword is not None:
                taken = z3.is_true(m.eval(s.cond, model_completion=True))
                k = s.keyword
                out.append(("branching", k.file, k.line, k.col, s.function,
                            "true" if taken else "false", "c_expression"))
        return out


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


def _argv_constraint(argv: dict[str, object]) -> str:
    """``argc == 2 && argv[1][0] == 65 && argv[1][1] == 0``: the arguments up to their
    NUL (argv[0], the program's name, is left free), chars as signed values."""
    argc = argv.get("argc")
    out = [f"argc == {argc}"] if argc is not None else []
    for name, value in argv.items():
        if not name.startswith("argv[") or not isinstance(value, (bytes, bytearray)):
            continue
        i = int(name[5:-1])
        if i == 0 or (isinstance(argc, int) and i >= argc):
            continue
        data = bytes(value).split(b"\0", 1)[0] + b"\0"
        out += [f"{name}[{k}] == {b - 256 if b > 127 else b}" for k, b in enumerate(data)]
    return " && ".join(out)
