"""Error explanation (Groce & Kroening, Sec. 6): the nearest passing run and the
predicates the error causally depends on.

Distance d(a, b) between two runs is the number of SSA values and block guards
that differ. The nearest successful execution minimises it (MaxSMT). Candidate
causes are relations ``x == y``, ``x < y``, ``x <= y`` and their negations between
SSA values where at least one changed in the nearest run, true in the
counterexample; each is checked with the paper's two steps:

(i) find b with not-c at minimal distance; if b still fails, e does not depend on c;
(ii) check every run with not-c at that distance: if none fails, it does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from ..ir.program import SourceLoc
from ..ir.types import IntType
from ..semantics.bmc import Encoding
from ..semantics.equation import Step
from ..semantics.solving import check_sat
from .minimize import goal_of, named_guards

RELATIONS = ("==", "!=", "<", "<=", ">", ">=")


@dataclass
class Change:
    name: str
    loc: SourceLoc
    before: int
    after: int

    def to_json(self) -> dict:
        return {"variable": self.name, "file": self.loc.file, "line": self.loc.line,
                "before": self.before, "after": self.after}


@dataclass
class Cause:
    text: str  # in the paper's notation, e.g. "c#0 < a#0"
    left: str
    right: str
    relation: str
    lines: list[SourceLoc]

    def to_json(self) -> dict:
        return {"predicate": self.text, "relation": self.relation,
                "where": [{"variable": v, "file": loc.file, "line": loc.line}
                          for v, loc in zip((self.left, self.right), self.lines)]}


@dataclass
class BranchChange:
    condition: str
    loc: SourceLoc
    function: str
    before: bool
    after: bool

    def to_json(self) -> dict:
        return {"condition": self.condition, "file": self.loc.file, "line": self.loc.line,
                "function": self.function, "counterexample": self.before, "passing_run": self.after}


@dataclass
class Explanation:
    distance: int | None
    changes: list[Change]
    causes: list[Cause]
    candidates: int = 0
    solver_calls: int = 0
    time_s: float = 0.0
    complete: bool = True
    note: str = ""
    branches: list[BranchChange] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"distance": self.distance, "changes": [c.to_json() for c in self.changes],
                "changed_branches": [b.to_json() for b in self.branches],
                "causes": [c.to_json() for c in self.causes], "candidates_checked": self.candidates,
                "solver_calls": self.solver_calls, "time_s": round(self.time_s, 4),
                "complete": self.complete, "note": self.note or None}


@dataclass
class _Var:
    step: Step
    display: str


def _short(name: str, all_names: list[str]) -> str:
    """``f::a#0`` -> ``a#0`` when no other function has a variable of that name."""
    if "::" not in name:
        return name
    fn, local = name.split("::", 1)
    clash = any(n != name and n.split("::", 1)[-1] == local for n in all_names)
    return name if clash else local


def _named_inputs(steps: list[Step], constraints: list, inputs_only: bool) -> list[Step]:
    """An input passed straight to a parameter (``f(nondet_int(), ...)``) is known by
    the parameter's name: the input goes, the parameter stays (with --causes-inputs-only
    only such parameters do). Same value = joined by equalities of SSA symbols."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for c in constraints:
        if z3.is_eq(c) and all(_is_symbol(a) for a in c.children()):
            a, b = (find(str(x)) for x in c.children())
            if a != b:
                parent[a] = b
    params = [s for s in steps if s.kind == "param"]
    param_class = {find(str(p.ssa)): p for p in params}
    aliased = {id(s): param_class[find(str(s.ssa))] for s in steps
               if s.kind == "input" and find(str(s.ssa)) in param_class}
    kept = {id(p) for p in aliased.values()}
    return [s for s in steps if id(s) not in aliased and (s.kind != "param" or not inputs_only or id(s) in kept)]


def _is_symbol(e) -> bool:
    return z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED


def _display(name: str, all_names: list[str]) -> str:
    """The name as the source writes it: ``f::a#0`` -> ``a`` when that names one value
    here; the function and the SSA version only where they are needed to tell apart."""
    short = _short(name, all_names)
    base = short.split("#", 1)[0]
    same = [n for n in all_names if _short(n, all_names).split("#", 1)[0] == base]
    return base if len(same) == 1 else short


class Explainer:
    def __init__(self, enc: Encoding, prop_id: str, checks: frozenset[str], inputs_only: bool = False,
                 timeout_s: float = 120.0, max_candidates: int = 2000) -> None:
        self.enc = enc
        self.effect = goal_of(enc, prop_id)
        self.checks = checks
        self.deadline = time.perf_counter() + timeout_s
        self.max_candidates = max_candidates
        self.calls = 0
        self.time_s = 0.0
        kinds = ("input", "param") if inputs_only else ("input", "assign", "param")
        steps = [s for s in enc.eq.steps if s.kind in kinds and s.ssa is not None
                 and isinstance(s.type, IntType)
                 and (s.call_result or not (s.kind == "assign" and s.hidden))
                 and not s.lhs.startswith("__")]
        steps = _named_inputs(steps, enc.eq.constraints, inputs_only)
        names = [s.name for s in steps]
        self.vars = [_Var(s, _display(s.name, names)) for s in steps]
        # Temporaries the frontend introduced are not program variables: they do not count.
        dist_steps = [s for s in enc.eq.steps if s.kind in ("input", "assign", "param") and s.ssa is not None
                      and (s.call_result or not (s.kind == "assign" and s.hidden))]
        self.dist_terms = [s.ssa for s in dist_steps] + named_guards(enc)
        self.decisions = [s for s in enc.eq.steps if s.kind == "decision" and s.cond is not None]
        self.all_violations = [s.violation for s in enc.eq.steps if s.kind == "check" and s.prop_kind in checks]
        self.unwinds = [s.guard for s in enc.eq.unwinds()]
        self._step1: z3.Optimize | None = None
        self._step2: z3.Solver | None = None
        self._dterms: list[z3.BoolRef] = []

    def _opt(self) -> z3.Optimize:
        o = z3.Optimize()
        for c in self.enc.eq.constraints:
            o.add(c)
        if self.unwinds:
            o.add(z3.Not(z3.Or(*self.unwinds)))  # whole runs within the bound
        return o

    def _check(self, s):
        t0 = time.perf_counter()
        r = check_sat(s, (), self.deadline)
        self.calls += 1
        self.time_s += time.perf_counter() - t0
        return r

    def distance_terms(self, a: z3.ModelRef) -> list[z3.BoolRef]:
        """One literal per SSA value / guard: it differs from the counterexample's."""
        return [t != a.eval(t, model_completion=True) for t in self.dist_terms]

    def nearest(self, a: z3.ModelRef, extra: list[z3.BoolRef], passing: bool) -> tuple[z3.ModelRef | None, int | None, str]:
        o = self._opt()
        for c in extra:
            o.add(c)
        if passing:
            o.add(z3.Not(z3.Or(*self.all_violations)) if self.all_violations else z3.BoolVal(True))
        for d in self.distance_terms(a):
            o.add_soft(z3.Not(d), 1)
        r = self._check(o)
        if r != z3.sat:
            return None, None, "unknown" if r == z3.unknown else "unsat"
        b = o.model()
        dist = sum(1 for d in self.distance_terms(a) if z3.is_true(b.eval(d, model_completion=True)))
        return b, dist, "sat"

    def explain(self, a: z3.ModelRef) -> Explanation:
        t_start = time.perf_counter()
        b, dist, status = self.nearest(a, [], passing=True)
        if b is None:
            note = "no passing run exists within the bound" if status == "unsat" else "timeout"
            return Explanation(None, [], [], 0, self.calls, time.perf_counter() - t_start, status == "unsat", note)
        b = self.smallest_changes(a, b, dist)
        val = lambda m, v: v.step.type.wrap(m.eval(v.step.ssa, model_completion=True).as_long())  # noqa: E731
        executed = [v for v in self.vars if z3.is_true(a.eval(v.step.guard, model_completion=True))]
        changes = [Change(v.display, v.step.loc, val(a, v), val(b, v)) for v in executed if val(a, v) != val(b, v)]
        branches = self.changed_decisions(a, b)
        changed = {id(v) for v in executed if val(a, v) != val(b, v)}
        # Truth values (0/1 in both runs, not inputs): relations between a truth value and
        # a number are not hypothesised, nor between two of them: the changed branches
        # already say what they would.
        flag = {id(v) for v in executed
                if v.step.kind not in ("input", "param") and val(a, v) in (0, 1) and val(b, v) in (0, 1)}
        candidates = []
        for i, x in enumerate(executed):
            for y in executed[i + 1:]:
                if id(x) not in changed and id(y) not in changed:
                    continue
                if x.step.ssa.sort() != y.step.ssa.sort():
                    continue
                if id(x) in flag or id(y) in flag:
                    continue
                for rel in RELATIONS:
                    c = _relation(rel, x, y)
                    if z3.is_true(a.eval(c, model_completion=True)):
                        candidates.append((x, y, rel, c))
        # Most telling first, so a time limit cuts the least useful checks: relations of
        # changed inputs, then of changed variables, then the rest; == before orderings.
        def rank(cand) -> tuple:
            x, y, rel, _ = cand
            inputs = sum(1 for v in (x, y) if id(v) in changed and v.step.kind in ("input", "param"))
            return (-inputs, -sum(1 for v in (x, y) if id(v) in changed),
                    any(v.step.call_result for v in (x, y)), RELATIONS.index(rel))

        candidates.sort(key=rank)
        causes: list[Cause] = []
        complete = True
        checked = 0
        for x, y, rel, c in candidates[: self.max_candidates]:
            if time.perf_counter() > self.deadline:
                complete = False
                break
            checked += 1
            verdict = self.depends(a, c)
            if verdict is None:
                complete = False
            elif verdict:
                causes.append(_oriented(x, y, rel))
        if len(candidates) > self.max_candidates:
            complete = False
        causes.sort(key=lambda c: (c.relation not in ("==", "<", "<="), c.text))
        note = "" if complete else "time or candidate limit reached: causes may be missing"
        return Explanation(dist, changes, causes, checked, self.calls, time.perf_counter() - t_start, complete,
                           note, branches)

    def changed_decisions(self, a: z3.ModelRef, b: z3.ModelRef) -> list[BranchChange]:
        """Branches the counterexample takes that the passing run takes the other way:
        where the error is localised."""
        out: list[BranchChange] = []
        seen: set[tuple] = set()
        for d in self.decisions:
            ga = z3.is_true(a.eval(d.guard, model_completion=True))
            gb = z3.is_true(b.eval(d.guard, model_completion=True))
            if not (ga and gb):
                continue
            ca = z3.is_true(a.eval(d.cond, model_completion=True))
            cb = z3.is_true(b.eval(d.cond, model_completion=True))
            key = (d.decision_id, ca, cb)
            if ca != cb and key not in seen:
                seen.add(key)
                out.append(BranchChange(d.lhs, d.loc, d.function, ca, cb))
        return out

    def smallest_changes(self, a: z3.ModelRef, b: z3.ModelRef, dist: int) -> z3.ModelRef:
        """Among the nearest passing runs, one whose changed inputs are small (readable)."""
        o = self._opt()
        if self.all_violations:
            o.add(z3.Not(z3.Or(*self.all_violations)))
        o.add(z3.PbLe([(d, 1) for d in self.distance_terms(a)], dist))
        from .minimize import abs_terms

        for v in self.vars:
            if v.step.kind == "input":
                for lit, w in abs_terms(v.step):
                    o.add_soft(z3.Not(lit), w)
        return o.model() if self._check(o) == z3.sat else b

    def depends(self, a: z3.ModelRef, c: z3.BoolRef) -> bool | None:
        """The paper's two-step check; None when a solver call was undecided.

        One optimizer (soft: stay close to ``a``) and one solver serve every
        candidate; each candidate is a push/pop scope on them."""
        if self._step1 is None:
            self._step1 = self._opt()
            self._dterms = self.distance_terms(a)
            for d in self._dterms:
                self._step1.add_soft(z3.Not(d), 1)
            self._step2 = z3.Solver()
            for k in self.enc.eq.constraints:
                self._step2.add(k)
            if self.unwinds:
                self._step2.add(z3.Not(z3.Or(*self.unwinds)))
            self._step2.add(self.effect)
        o = self._step1
        o.push()
        try:
            o.add(z3.Not(c))
            r = self._check(o)
            if r != z3.sat:
                return None if r == z3.unknown else False
            b = o.model()
        finally:
            o.pop()
        if z3.is_true(b.eval(self.effect, model_completion=True)):
            return False
        dist = sum(1 for d in self._dterms if z3.is_true(b.eval(d, model_completion=True)))
        s = self._step2
        s.push()
        try:
            s.add(z3.Not(c), z3.PbEq([(d, 1) for d in self._dterms], dist))
            r = self._check(s)
        finally:
            s.pop()
        if r == z3.unknown:
            return None
        return r == z3.unsat


def _oriented(x: _Var, y: _Var, rel: str) -> Cause:
    """In the paper's style: ``c#0 < a#0`` rather than ``a#0 > c#0``."""
    flip = {">": "<", ">=": "<="}
    if rel in flip:
        x, y, rel = y, x, flip[rel]
    return Cause(f"{x.display} {rel} {y.display}", x.display, y.display, rel, [x.step.loc, y.step.loc])


def _relation(rel: str, x: _Var, y: _Var) -> z3.BoolRef:
    a, b = x.step.ssa, y.step.ssa
    t = x.step.type
    signed = isinstance(t, IntType) and t.signed
    if rel == "==":
        return a == b
    if rel == "!=":
        return a != b
    if signed:
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[rel]
    return {"<": z3.ULT(a, b), "<=": z3.ULE(a, b), ">": z3.UGT(a, b), ">=": z3.UGE(a, b)}[rel]


def explain(enc: Encoding, model: z3.ModelRef, prop_id: str, checks: frozenset[str],
            inputs_only: bool = False, timeout_s: float = 120.0) -> Explanation:
    return Explainer(enc, prop_id, checks, inputs_only, timeout_s).explain(model)


__all__ = ["explain", "Explanation", "Cause", "Change"]
