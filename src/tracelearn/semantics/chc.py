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

from .. import z3dag
from .bv2int import Untranslatable, to_int_clauses
from .clauses import Atom, Clause, inline, normalize, strengthen
from .houdini import Houdini, linear, variables
from .lemmas import candidates
from ..querytime import at_deadline
from .solving import check_sat
from .strategies.horn import HornSystem, Predicate

INLINE_LIMIT = 3000  # clauses after inlining the blocks: past it, no lemma stage
# Spacer alone first, for at most this long, before the lemma stage: the clauses it proves
# at once waited for the lemmas (a recursive sum: 0.13 s alone, 4.8 s through 688 lemma queries)
SPACER_FIRST_S = 1.0


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
    witness: str | None = None  # a loop invariant as C over the source variables in scope, for witnesses

    def to_json(self) -> dict:
        return {"function": self.proc, "kind": self.kind, "location": self.loc, "invariant": self.text,
                "format": "c" if self.is_c else "smt-lib"}

    # Pickled as SMT-LIB text (a proof found in another process comes back this way),
    # its variables renamed: SMT-LIB has no quoted symbol for ``\old(x)``. Unpickled
    # into z3's main context.
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        f = state.pop("formula")
        if f is not None:
            consts = z3dag.constants([f])
            plain = [z3.Const(f"v{i}", c.sort()) for i, c in enumerate(consts)]
            state["formula_smt2"] = (z3dag.smtlib([z3.substitute(f, *zip(consts, plain)) if consts else f]),
                                     [c.decl().name() for c in consts])
        return state

    def __setstate__(self, state: dict) -> None:
        saved = state.pop("formula_smt2", None)
        self.__dict__.update(state)
        self.formula = None
        if saved is not None:
            text, names = saved
            try:
                f = z3.And(*z3.parse_smt2_string(text))
            except z3.Z3Exception:  # the proof stands on its text; no formula to evaluate
                return
            plain = {c.decl().name(): c for c in z3dag.constants([f])}
            pairs = [(plain[f"v{i}"], z3.Const(n, plain[f"v{i}"].sort())) for i, n in enumerate(names)
                     if f"v{i}" in plain]
            self.formula = z3.substitute(f, *pairs) if pairs else f


@dataclass
class HornAnswer:
    status: str  # "proved", "reachable" (an error is derivable), "unknown"
    reason: str = ""
    invariants: list[Invariant] = field(default_factory=list)
    time_s: float = 0.0
    clauses: int = 0
    predicates: int = 0
    arithmetic: str = ""  # "integer" (exact translation) or "bit-vector"
    solver: str = "spacer"  # "lemmas" (the summary lemmas alone), "spacer", "spacer+lemmas"
    lemmas: int = 0  # summary lemmas proved before Spacer ran
    lemma_queries: int = 0


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
        # what the proof thread needs of the main context's terms, read here (on the
        # main thread): touching them there would race with the model checker
        self.names = [p.func.name() for p in system.predicates]
        self.name_of = {id(p): nm for p, nm in zip(system.predicates, self.names)}
        self.every = [(p, f) for p, f in self.preds]  # every predicate, 0-ary ones included
        self.widths = {nm: [s.sort.size() if z3.is_bv_sort(s.sort) else None for s in p.slots]
                       for nm, p in zip(self.names, system.predicates)}
        self.arithmetic = "bit-vector"
        self.untranslatable = ""
        self.params: dict[str, list[z3.ExprRef]] = {}  # the lemmas' argument constants, per predicate
        if arithmetic == "auto":
            try:
                clauses, funcs = to_int_clauses(self.clauses, self.ctx)
            except Untranslatable as e:
                self.untranslatable = str(e)
            else:
                self.clauses = clauses
                self.every = [(p, funcs[f.name()] if f.name() in funcs else z3.Bool(f.name(), self.ctx).decl())
                              for p, f in self.preds if f.name() in funcs or f.arity() == 0]
                self.preds = [(p, funcs[f.name()]) for p, f in self.preds if f.name() in funcs]
                self.arithmetic = "integer"

    def interrupt(self) -> None:
        self.ctx.interrupt()

    def solve(self, deadline: float | None, rows: dict[str, list[tuple]] | None = None,
              lemma_deadline: float | None = None, spacer_first_s: float = SPACER_FIRST_S) -> HornAnswer:
        """Spacer on the clauses; with ``rows`` (facts of the summaries, from concrete
        calls) Spacer alone for ``spacer_first_s`` (0: not), then the lemma stage until
        ``lemma_deadline``: candidate summary lemmas checked by Houdini. Its lemmas may
        prove the clauses alone; else the linear ones strengthen the clauses Spacer
        solves."""
        t0 = time.perf_counter()
        n = dict(clauses=len(self.clauses), predicates=len(self.preds), arithmetic=self.arithmetic)
        clauses, lemmas, extra = self.clauses, {}, {}
        if rows is not None and self.arithmetic == "integer":
            if spacer_first_s > 0:
                first = t0 + spacer_first_s
                answer = self._spacer(clauses, {}, first if deadline is None else min(first, deadline), t0, n, {})
                if answer.status != "unknown" or at_deadline(deadline):
                    return answer
            lemma_end = deadline
            if lemma_deadline is not None:  # (counted from here: Spacer's first try is not its time)
                lemma_end = lemma_deadline + (time.perf_counter() - t0)
                if deadline is not None:
                    lemma_end = min(lemma_end, deadline)
            try:
                found = self.lemma_stage(rows, lemma_end)
            except z3.Z3Exception:
                found = None
            if found is not None:
                status, lemmas, queries, normal = found
                extra = dict(lemmas=sum(len(v) for v in lemmas.values()), lemma_queries=queries)
                if status == "proved":
                    return HornAnswer("proved", "", self.lemma_invariants(lemmas), time.perf_counter() - t0, **n,
                                      solver="lemmas", **extra)
                use = {p: [x for x in ls if linear(x)] for p, ls in lemmas.items()}
                use = {p: ls for p, ls in use.items() if ls}
                if use:
                    clauses = [strengthen(c, lambda a: self._lemma(use, a)) for c in normal]
                    lemmas = use
                    extra["solver"] = "spacer+lemmas"
                else:
                    lemmas = {}
        return self._spacer(clauses, lemmas, deadline, t0, n, extra)

    def _spacer(self, clauses: list, lemmas: dict[str, list[z3.BoolRef]], deadline: float | None, t0: float,
                n: dict, extra: dict) -> HornAnswer:
        """Spacer on ``clauses`` until ``deadline`` (``lemmas``: those the clauses were
        strengthened with, part of the invariants)."""
        s = z3.SolverFor("HORN", ctx=self.ctx)
        s.add(*clauses)
        try:
            r = check_sat(s, [], deadline)
        except z3.Z3Exception as e:
            return HornAnswer("unknown", f"the Horn solver failed: {e}", time_s=time.perf_counter() - t0, **n, **extra)
        dt = time.perf_counter() - t0
        if r == z3.unsat:
            return HornAnswer("reachable", "an error is derivable from the clauses", time_s=dt, **n, **extra)
        if r == z3.unknown:
            why = s.reason_unknown() or "gave up"
            if why in ("canceled", "timeout") or at_deadline(deadline):
                why = "timeout"
            return HornAnswer("unknown", f"the Horn solver: {why}", time_s=dt, **n, **extra)
        try:
            invs = self.invariants(s.model(), lemmas)
        except z3.Z3Exception:
            invs = []
        return HornAnswer("proved", "", invs, dt, **n, **extra)

    # ------------------------------------------------------------ lemma stage

    def lemma_stage(self, rows: dict[str, list[tuple]], deadline: float | None
                    ) -> tuple[str, dict[str, list[z3.BoolRef]], int, list[Clause]] | None:
        """Houdini over candidate summary lemmas on the clauses with every block that is
        no loop head inlined: (status, lemmas, queries, the normalized clauses), or None
        when the inlined clauses would be too many."""
        relations = set(self.names)
        normal = [normalize(c, relations) for c in self.clauses]
        blocks = [f.name() for p, f in self.preds if p.kind == "block" and not p.loop_head]
        inlined = inline(normal, blocks, INLINE_LIMIT)
        if inlined is None:
            return None
        cands = candidates(self.every, rows, self.widths, self.ctx)
        self.params = cands.params
        h = Houdini(inlined, cands, self.ctx)
        res = h.run(deadline if deadline is not None else float("inf"))
        return res.status, {p: ls for p, ls in res.lemmas.items() if ls}, res.queries, normal

    def _lemma(self, lemmas: dict[str, list[z3.BoolRef]], a: Atom) -> z3.BoolRef | None:
        ls = lemmas.get(a.pred)
        if not ls:
            return None
        f = z3.And(*ls) if len(ls) > 1 else ls[0]
        return z3.substitute(f, *zip(self.params[a.pred], a.args)) if a.args else f

    def lemma_invariants(self, lemmas: dict[str, list[z3.BoolRef]]) -> list[Invariant]:
        out = []
        for p, f in self.preds:
            ls = lemmas.get(f.name())
            if p.kind != "sum" or not ls or p.proc == self.system.entry or p.proc.startswith("__tl_"):
                continue
            named = [z3.Const(nm, f.domain(i)) for i, nm in enumerate(_names(p))]
            val = z3.substitute(z3.And(*ls), *zip(self.params[f.name()], named))
            text = c_text(val)
            out.append(Invariant(p.proc, "summary", str(p.loc) if p.loc is not None else "",
                                 text if text is not None else val.sexpr(), text is not None, val))
        return out

    def invariants(self, model: z3.ModelRef, lemmas: dict[str, list[z3.BoolRef]] | None = None) -> list[Invariant]:
        """Spacer's interpretation of each predicate, conjoined with the lemmas the
        clauses were strengthened with (the model is one of the strengthened clauses)."""
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
            if lemmas and lemmas.get(f.name()):
                val = z3.And(val, z3.substitute(z3.And(*lemmas[f.name()]), *zip(self.params[f.name()], args)))
            val = _eliminate_quantifiers(val)
            text = c_text(val)
            loc = str(p.loc) if p.loc is not None else ""
            short, wit = self.witness_text(p, names, args, val) if p.kind == "block" and self.arithmetic == "integer" \
                else (None, None)
            if short is not None and c_text(short) is not None:
                text = c_text(short)  # the short form over the source variables reads better
            out.append(Invariant(p.proc, "loop" if p.kind == "block" else "summary", loc,
                                 text if text is not None else val.sexpr(), text is not None, val, wit))
        return out


    def witness_text(self, p: Predicate, names: list[str], args: list[z3.ExprRef],
                     val: z3.BoolRef) -> tuple[z3.BoolRef | None, str | None]:
        """The loop invariant over the source variables only (entry values, temporaries
        and memory contents projected out: still inductive, as the loop never changes
        them), as C that evaluates to the same truth value: every variable widened to
        ``long long`` (an unsigned one through its signed type, as the integer clauses
        read it), or None when no such C exists (division, a quantifier left, a value
        that could exceed ``long long``); with the formula printed."""
        keep: dict[str, tuple[int, bool]] = {}
        drop = []
        for i, (nm, s, a) in enumerate(zip(names, p.slots, args)):
            temporary = s.key.rsplit(":", 1)[-1].startswith("__")  # the frontend's, not the program's
            width = self.widths[self.name_of[id(p)]][i]
            source = i >= p.n_in and s.oid is None and not temporary and "$" not in nm and width is not None
            if source:
                keep[nm] = (width, s.signed)
            else:
                drop.append(a)
        kept = [a for a, nm in zip(args, names) if nm in keep]
        # every value is in its type's range: a context that lets z3 drop the wrap-around cases
        ranges = [z3.And(a >= -(1 << (keep[str(a)][0] - 1)), a < (1 << (keep[str(a)][0] - 1))) for a in kept]
        try:
            goal = z3.Goal(ctx=self.ctx)
            goal.add(z3.Exists(drop, val) if drop else val)
            goal.add(*ranges)
            res = z3.Then("qe", "simplify", ctx=self.ctx)(goal)
            if len(res) != 1:
                return None, None
            f = res[0].as_expr()
        except z3.Z3Exception:
            return None, None
        short = _implied_literals(f, z3.And(*ranges) if ranges else z3.BoolVal(True, self.ctx), set(keep))
        return short, wide_c_text(short if short is not None else z3.simplify(f), keep)


def _implied_literals(f: z3.BoolRef, ranges: z3.BoolRef, names: set[str]) -> z3.BoolRef | None:
    """The conjunction of the comparisons in ``f`` (or their negations) that ``f``
    implies, when it is equivalent to ``f`` within the ranges: a short form of what
    quantifier elimination and wrap-around cases spelled out at length. None if not."""
    atoms: dict[int, z3.BoolRef] = {}
    todo = [f]
    while todo:
        x = todo.pop()
        if z3.is_app(x) and x.decl().kind() in (z3.Z3_OP_LE, z3.Z3_OP_LT, z3.Z3_OP_GE, z3.Z3_OP_GT, z3.Z3_OP_EQ) \
                and z3.is_int(x.arg(0)):
            atoms[x.get_id()] = x
        elif z3.is_app(x) and x.sort().kind() == z3.Z3_BOOL_SORT:
            todo.extend(x.children())
    if not atoms or len(atoms) > 60:
        return None
    def valid(premise: z3.BoolRef, conclusion: z3.BoolRef) -> bool:
        s = z3.Solver(ctx=f.ctx)
        s.set("timeout", 2000)
        s.add(ranges, premise, z3.Not(conclusion))
        return s.check() == z3.unsat

    true = z3.BoolVal(True, f.ctx)
    kept = []
    for a in atoms.values():
        if any(str(c) not in names for c in variables(a)):
            continue
        for lit in (a, z3.Not(a)):
            if valid(f, lit) and not valid(true, lit):  # implied, and not by the types alone
                kept.append(lit)
                break
    if not kept or not valid(z3.And(*kept), f):
        return None
    for lit in list(kept):  # drop what the others imply
        rest = [x for x in kept if x is not lit]
        if rest and valid(z3.And(*rest), f):
            kept = rest
    return z3.simplify(z3.And(*kept)) if len(kept) > 1 else z3.simplify(kept[0])


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


_SIGNED_TYPE = {8: "signed char", 16: "short", 32: "int", 64: "long long"}
_LIMIT = 1 << 62


def wide_c_text(e: z3.ExprRef, widths: dict[str, tuple[int, bool]]) -> str | None:
    """A linear-integer formula as C evaluated in ``long long`` without overflow (each
    subterm's magnitude is bounded from the variables' widths), or None."""

    def go(x: z3.ExprRef) -> tuple[str, int]:  # text, bound on |value| (0 for Booleans)
        if z3.is_true(x):
            return "1", 0
        if z3.is_false(x):
            return "0", 0
        if z3.is_int_value(x):
            v = x.as_long()
            return (f"{v}LL" if v >= 0 else f"({v}LL)"), abs(v)
        if z3.is_const(x):
            name = x.decl().name()
            if name not in widths:
                raise _NotC()
            w, signed = widths[name]
            if w not in _SIGNED_TYPE:
                raise _NotC()
            inner = name if signed else f"({_SIGNED_TYPE[w]}){name}"
            return f"(long long){inner}", 1 << (w - 1)
        if not z3.is_app(x):
            raise _NotC()
        k = x.decl().kind()
        ch = [go(c) for c in x.children()]
        if k in (z3.Z3_OP_AND, z3.Z3_OP_OR):
            op = " && " if k == z3.Z3_OP_AND else " || "
            return op.join(f"({t})" for t, _ in ch), 0
        if k == z3.Z3_OP_NOT:
            return f"!({ch[0][0]})", 0
        if k == z3.Z3_OP_IMPLIES:
            return f"!({ch[0][0]}) || ({ch[1][0]})", 0
        if k in (z3.Z3_OP_LE, z3.Z3_OP_LT, z3.Z3_OP_GE, z3.Z3_OP_GT, z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT):
            if len(ch) != 2 or not z3.is_int(x.children()[0]):
                raise _NotC()
            op = {z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">", z3.Z3_OP_EQ: "==",
                  z3.Z3_OP_DISTINCT: "!="}[k]
            return f"{ch[0][0]} {op} {ch[1][0]}", 0
        if k == z3.Z3_OP_ADD:
            bound = sum(b for _, b in ch)
            if bound >= _LIMIT:
                raise _NotC()
            return "(" + " + ".join(t for t, _ in ch) + ")", bound
        if k == z3.Z3_OP_SUB:
            bound = sum(b for _, b in ch)
            if bound >= _LIMIT:
                raise _NotC()
            return "(" + " - ".join(t for t, _ in ch) + ")", bound
        if k == z3.Z3_OP_UMINUS:
            return f"(-{ch[0][0]})", ch[0][1]
        if k == z3.Z3_OP_MUL:
            bound = 1
            for _, b in ch:
                bound *= max(b, 1)
            if bound >= _LIMIT or sum(not z3.is_int_value(c) for c in x.children()) > 1:
                raise _NotC()
            return "(" + " * ".join(t for t, _ in ch) + ")", bound
        if k == z3.Z3_OP_ITE:
            return f"(({ch[0][0]}) ? {ch[1][0]} : {ch[2][0]})", max(ch[1][1], ch[2][1])
        raise _NotC()  # div, mod: floor in z3, truncation in C

    try:
        return go(e)[0]
    except _NotC:
        return None


def _paren(s: str) -> str:
    return s if s.replace("_", "").replace("\\", "").replace("(", "").replace(")", "").isalnum() or \
        (s.startswith("-") and s[1:].isdigit()) else f"({s})"
