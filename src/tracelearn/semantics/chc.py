"""Solving Horn clauses with z3's Spacer, and reading the invariants it finds.

The clauses (``strategies/horn.py``) are built in z3's main context; they are solved
in a context of their own, so a proof can run on a thread beside the bounded model
checker (z3 contexts are not shared between threads). ``sat`` means the clauses have
a model: each predicate's interpretation is an inductive invariant, and no error is
reachable. ``unsat`` means an error is derivable (the model checker finds and replays
the run: Spacer's derivation is not shown as a counterexample here).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from .bv2int import Untranslatable, to_int_clauses
from .solving import check_sat
from .strategies.horn import HornSystem, Predicate


@dataclass
class Invariant:
    """What holds at a point of the program, as C over its variables (``\\old(x)``: the
    value ``x`` had when the procedure was entered; ``\\result``: the returned value)."""

    proc: str
    kind: str  # "loop" (at a loop head), "summary" (a procedure's input-output relation)
    loc: str
    text: str
    is_c: bool = True  # False: z3's notation (a quantifier Spacer left in)
    formula: z3.BoolRef | None = field(default=None, repr=False, compare=False)  # over the named variables

    def to_json(self) -> dict:
        return {"function": self.proc, "kind": self.kind, "location": self.loc, "invariant": self.text,
                "format": "c" if self.is_c else "smt-lib"}


@dataclass
class HornAnswer:
    status: str  # "proved", "reachable" (an error is derivable), "unknown"
    reason: str = ""
    invariants: list[Invariant] = field(default_factory=list)
    time_s: float = 0.0
    clauses: int = 0
    predicates: int = 0
    arithmetic: str = ""  # "integer" (exact translation) or "bit-vector"


class HornRun:
    """One Spacer run on a copy of the clauses in a context of its own: ``solve`` may run
    on another thread; ``interrupt`` stops it from any thread.

    ``arithmetic``: "auto" solves the exact integer translation of the clauses when there
    is one (``bv2int``: Spacer's invariants over linear integers are its strength), else
    the bit-vector clauses; "bv" always the bit-vector clauses."""

    def __init__(self, system: HornSystem, arithmetic: str = "auto") -> None:
        self.ctx = z3.Context()
        self.system = system
        self.clauses = [c.translate(self.ctx) for c in system.clauses]
        self.preds = [(p, p.func.translate(self.ctx)) for p in system.predicates]
        self.arithmetic = "bit-vector"
        self.untranslatable = ""
        if arithmetic == "auto":
            try:
                clauses, funcs = to_int_clauses(self.clauses, self.ctx)
            except Untranslatable as e:
                self.untranslatable = str(e)
            else:
                self.clauses = clauses
                self.preds = [(p, funcs[f.name()]) for p, f in self.preds if f.name() in funcs]
                self.arithmetic = "integer"

    def interrupt(self) -> None:
        self.ctx.interrupt()

    def solve(self, deadline: float | None) -> HornAnswer:
        t0 = time.perf_counter()
        n = dict(clauses=len(self.clauses), predicates=len(self.preds), arithmetic=self.arithmetic)
        s = z3.SolverFor("HORN", ctx=self.ctx)
        s.add(*self.clauses)
        try:
            r = check_sat(s, [], deadline)
        except z3.Z3Exception as e:
            return HornAnswer("unknown", f"the Horn solver failed: {e}", time_s=time.perf_counter() - t0, **n)
        dt = time.perf_counter() - t0
        if r == z3.unsat:
            return HornAnswer("reachable", "an error is derivable from the clauses", time_s=dt, **n)
        if r == z3.unknown:
            why = s.reason_unknown() or "gave up"
            if why in ("canceled", "timeout") or (deadline is not None and time.perf_counter() >= deadline - 0.05):
                why = "timeout"
            return HornAnswer("unknown", f"the Horn solver: {why}", time_s=dt, **n)
        try:
            invs = self.invariants(s.model())
        except z3.Z3Exception:
            invs = []
        return HornAnswer("proved", "", invs, dt, **n)

    def invariants(self, model: z3.ModelRef) -> list[Invariant]:
        out = []
        for p, f in self.preds:
            if p.kind == "err" or (p.kind == "block" and not p.loop_head) or p.proc.startswith("__tl_") or \
                    (p.kind == "sum" and p.proc == self.system.entry):
                continue
            names = _names(p)
            args = [z3.Const(nm, f.domain(i)) for i, nm in enumerate(names)]
            val = _interpretation(model, f, args)
            if val is None:
                continue
            val = _eliminate_quantifiers(val)
            text = c_text(val)
            loc = str(p.loc) if p.loc is not None else ""
            out.append(Invariant(p.proc, "loop" if p.kind == "block" else "summary", loc,
                                 text if text is not None else val.sexpr(), text is not None, val))
        return out


def _interpretation(model: z3.ModelRef, f: z3.FuncDeclRef, args: list[z3.ExprRef]) -> z3.BoolRef | None:
    """``f(args)`` under ``model`` (Spacer's models are an ``else`` over ``Var(i)`` = the
    i-th argument; ``eval`` of the application does not see them)."""
    interp = model.get_interp(f)
    if interp is None:
        return None
    if isinstance(interp, z3.FuncInterp):
        if interp.num_entries():
            return model.eval(f(*args), model_completion=True)
        return z3.substitute_vars(interp.else_value(), *args)
    return interp


def _names(p: Predicate) -> list[str]:
    """Distinct C names for a predicate's slots: entry values as ``\\old(x)``, a second
    local of the same name (another scope) as ``x$2``."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for i, s in enumerate(p.slots):
        base = f"\\old({s.name})" if i < p.n_in else s.name
        k = seen.get(base, 0) + 1
        seen[base] = k
        out.append(base if k == 1 else f"{base}${k}")
    return out


_BIN = {
    z3.Z3_OP_ADD: "+", z3.Z3_OP_SUB: "-", z3.Z3_OP_MUL: "*", z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<",
    z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">",
    z3.Z3_OP_BADD: "+", z3.Z3_OP_BSUB: "-", z3.Z3_OP_BMUL: "*",
    z3.Z3_OP_SLEQ: "<=", z3.Z3_OP_SLT: "<", z3.Z3_OP_SGEQ: ">=", z3.Z3_OP_SGT: ">",
    z3.Z3_OP_EQ: "==", z3.Z3_OP_BAND: "&", z3.Z3_OP_BOR: "|", z3.Z3_OP_BXOR: "^",
    z3.Z3_OP_BSDIV: "/", z3.Z3_OP_BSDIV_I: "/", z3.Z3_OP_BSREM: "%", z3.Z3_OP_BSREM_I: "%",
}
_UNSIGNED = {z3.Z3_OP_ULEQ: "<=", z3.Z3_OP_ULT: "<", z3.Z3_OP_UGEQ: ">=", z3.Z3_OP_UGT: ">"}


def _eliminate_quantifiers(e: z3.BoolRef) -> z3.BoolRef:
    """Spacer's interpretations may keep existentials (over projected-out values); the
    light elimination removes most, cheaply."""
    try:
        goal = z3.Goal(ctx=e.ctx)
        goal.add(e)
        res = z3.Then("qe-light", "simplify", ctx=e.ctx)(goal)
        if len(res) == 1:
            return z3.simplify(res[0].as_expr())
    except z3.Z3Exception:
        pass
    return z3.simplify(e)


class _NotC(Exception):
    pass


def c_text(e: z3.ExprRef) -> str | None:
    """``e`` (an invariant over bit-vector variables) as a C expression, or None when it
    has no C counterpart (a quantifier, an operator this printer does not know).
    Constants read as two's complement, so ``x + 4294967286`` shows as ``x + -10``."""

    def go(x: z3.ExprRef) -> str:
        if z3.is_true(x):
            return "1"
        if z3.is_false(x):
            return "0"
        if z3.is_bv_value(x):
            v, w = x.as_long(), x.size()
            return str(v - (1 << w) if v >> (w - 1) and w > 1 else v)
        if z3.is_int_value(x):
            return str(x.as_long())
        if z3.is_const(x):
            return x.decl().name()
        if not z3.is_app(x):
            raise _NotC()
        k = x.decl().kind()
        ch = x.children()
        if k == z3.Z3_OP_AND:
            return " && ".join(_paren(go(c)) for c in ch)
        if k == z3.Z3_OP_OR:
            return " || ".join(_paren(go(c)) for c in ch)
        if k == z3.Z3_OP_NOT:
            return f"!{_paren(go(ch[0]))}"
        if k == z3.Z3_OP_IMPLIES:
            return f"!{_paren(go(ch[0]))} || {_paren(go(ch[1]))}"
        if k == z3.Z3_OP_ITE:
            return f"{_paren(go(ch[0]))} ? {_paren(go(ch[1]))} : {_paren(go(ch[2]))}"
        if k in _BIN and len(ch) >= 2:
            return f" {_BIN[k]} ".join(_paren(go(c)) for c in ch)
        if k in _UNSIGNED:
            return f" {_UNSIGNED[k]} ".join(f"(unsigned){_paren(go(c))}" for c in ch)
        if k in (z3.Z3_OP_UMINUS, z3.Z3_OP_BNEG):
            return f"-{_paren(go(ch[0]))}"
        if k in (z3.Z3_OP_SIGN_EXT, z3.Z3_OP_ZERO_EXT):
            return go(ch[0])
        if k == z3.Z3_OP_DISTINCT and len(ch) == 2:
            return f"{_paren(go(ch[0]))} != {_paren(go(ch[1]))}"
        raise _NotC()

    try:
        return go(e)
    except _NotC:
        return None


def _paren(s: str) -> str:
    return s if s.replace("_", "").replace("\\", "").replace("(", "").replace(")", "").isalnum() or \
        (s.startswith("-") and s[1:].isdigit()) else f"({s})"
