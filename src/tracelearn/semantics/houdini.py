"""Houdini over Horn clauses: the largest subset of candidate lemmas that is
inductive, and whether it proves the clauses.

Each predicate is read as the conjunction of its surviving candidates (a predicate
with none as ``true``). A candidate of a clause's head is dropped when the clause's
constraint and its body atoms' lemmas do not imply it (z3 finds a model, or cannot
decide: ``unknown`` drops it too, so what survives is proved); a model also drops
every other candidate it refutes. At the fixpoint every clause maps lemmas to lemmas:
the lemmas hold of every fact the clauses derive (an over-approximation of the least
model), and if no query clause's body is satisfiable under them, the clauses have a
model: no error is reachable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from .clauses import Atom, Clause, conjuncts
from .lemmas import Candidates


@dataclass
class HoudiniResult:
    status: str  # "proved" | "unknown"
    lemmas: dict[str, list[z3.BoolRef]] = field(default_factory=dict)  # what survived, over Candidates.params
    queries: int = 0
    reason: str = ""


# Each question's effort is bounded by z3's resource count, not by the clock: the same
# lemmas survive on a loaded machine (a time limit dropped some under load); the clock
# limit is only a backstop.
QUERY_RLIMIT = 8_000_000
QUERY_MS = 10_000


class Houdini:
    def __init__(self, clauses: list[Clause], cands: Candidates, ctx: z3.Context, query_ms: int = QUERY_MS) -> None:
        self.clauses = clauses
        self.params = cands.params
        self.lemmas = {p: list(ls) for p, ls in cands.lemmas.items()}
        self.ctx = ctx
        self.query_ms = query_ms
        self.queries = 0

    def instance(self, pred: str, lemma: z3.BoolRef, a: Atom) -> z3.BoolRef:
        return z3.substitute(lemma, *zip(self.params[pred], a.args)) if a.args else lemma

    def assumed(self, c: Clause) -> list[z3.BoolRef]:
        out = [c.constraint]
        for a in c.body:
            out.extend(self.instance(a.pred, lem, a) for lem in self.lemmas.get(a.pred, ()))
        return out

    def solver(self, c: Clause, deadline: float) -> "_Checker":
        return _Checker(self.assumed(c), self.ctx,
                        max(1, min(self.query_ms, int((deadline - time.perf_counter()) * 1000))))

    def run(self, deadline: float) -> HoudiniResult:
        changed = True
        while changed:
            changed = False
            for c in self.clauses:
                if c.head is None or not self.lemmas.get(c.head.pred):
                    continue
                if time.perf_counter() > deadline:
                    return HoudiniResult("unknown", self.lemmas, self.queries, "time limit")
                if self.weaken(c, deadline):
                    changed = True
        for c in self.clauses:
            if c.head is not None:
                continue
            if time.perf_counter() > deadline:
                return HoudiniResult("unknown", self.lemmas, self.queries, "time limit")
            s = self.solver(c, deadline)
            self.queries += 1
            if s.check(z3.BoolVal(True, self.ctx)) != z3.unsat:
                return HoudiniResult("unknown", self.lemmas, self.queries, "the lemmas do not exclude every error")
        return HoudiniResult("proved", self.lemmas, self.queries)

    def weaken(self, c: Clause, deadline: float) -> bool:
        """Drop the head's candidates that ``c`` does not preserve; True if any."""
        assert c.head is not None
        head, pred = c.head, c.head.pred
        s = self.solver(c, deadline)
        kept = list(self.lemmas[pred])
        dropped = False
        i = 0
        while i < len(kept):
            lem = kept[i]
            goal = self.instance(pred, lem, head)
            self.queries += 1
            r = s.check(z3.Not(goal))
            if r == z3.unsat:
                i += 1
                continue
            dropped = True
            if r == z3.sat:
                m = s.model
                refuted = {k for k, other in enumerate(kept)
                           if k >= i and z3.is_false(m.eval(self.instance(pred, other, head), model_completion=True))}
                refuted.add(i)
                kept = [x for k, x in enumerate(kept) if k not in refuted]
            else:
                kept.pop(i)
        self.lemmas[pred] = kept
        return dropped


class _Checker:
    """Is ``assumed and extra`` satisfiable? When products of variables occur, first with
    each product abstracted by a variable of its own, after solving the clause's
    definitions (``x == t``) into the terms and normalizing to sums of monomials (so
    ``n * (m - 1)`` and ``n * m`` share one): an over-approximation in linear
    arithmetic, whose ``unsat`` is final. Else, or when it is satisfiable, the exact
    (non-linear) question."""

    def __init__(self, assumed: list[z3.BoolRef], ctx: z3.Context, timeout_ms: int) -> None:
        self.ctx = ctx
        self.timeout_ms = timeout_ms
        self.monomials: dict[str, z3.ArithRef] = {}
        self.exact = z3.Solver(ctx=ctx)
        self.exact.set("timeout", timeout_ms)
        self.exact.set("rlimit", QUERY_RLIMIT)
        self.exact.add(*assumed)
        self.assumed = assumed
        self.products = any(_has_products(a) for a in assumed)
        self.abstract: z3.Solver | None = None
        self.defs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
        self.model: z3.ModelRef | None = None

    def check(self, extra: z3.BoolRef) -> z3.CheckSatResult:
        if (self.products or _has_products(extra)) and self.abstract_unsat(extra):
            return z3.unsat
        self.exact.push()
        self.exact.add(extra)
        r = self.exact.check()
        self.model = self.exact.model() if r == z3.sat else None
        self.exact.pop()
        return r

    def abstract_unsat(self, extra: z3.BoolRef) -> bool:
        if self.abstract is None:
            self.defs = _definitions([c for a in self.assumed for c in conjuncts(a)])
            self.abstract = z3.Solver(ctx=self.ctx)
            self.abstract.set("timeout", self.timeout_ms)
            self.abstract.set("rlimit", QUERY_RLIMIT)
            self.abstract.add(*[self.linearize(a) for a in self.assumed])
        self.abstract.push()
        self.abstract.add(self.linearize(extra))
        r = self.abstract.check()
        self.abstract.pop()
        return r == z3.unsat

    def linearize(self, e: z3.BoolRef) -> z3.BoolRef:
        if self.defs:
            e = z3.substitute(e, *self.defs)
        e = z3.simplify(_lift_ite(e), som=True)
        cache: dict[int, z3.ExprRef] = {}

        def go(x: z3.ExprRef) -> z3.ExprRef:
            i = x.get_id()
            if i in cache:
                return cache[i]
            if z3.is_app(x) and _is_product(x):
                consts = [c for c in x.children() if z3.is_int_value(c)]
                rest = [c for c in x.children() if not z3.is_int_value(c)]
                key = " ".join(sorted(c.sexpr() for c in rest))
                v = self.monomials.setdefault(key, z3.FreshInt("monomial", self.ctx))
                out: z3.ExprRef = v if not consts else z3.Product(*consts, v)
            elif z3.is_app(x) and x.num_args() > 0:
                out = x.decl()(*[go(c) for c in x.children()])
            else:
                out = x
            cache[i] = out
            return out

        return go(e)


def _definitions(conj: list[z3.BoolRef]) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """Equations ``x == t`` (``x`` a variable not in ``t``) solved into a substitution
    whose terms mention none of its variables."""
    defs: dict[str, tuple[z3.ExprRef, z3.ExprRef]] = {}
    for c in conj:
        if not z3.is_eq(c) or not z3.is_arith(c.arg(0)):
            continue
        for x, t in ((c.arg(0), c.arg(1)), (c.arg(1), c.arg(0))):
            if not (z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED) or x.sexpr() in defs:
                continue
            if defs:
                t = z3.substitute(t, *defs.values())
            if any(v.eq(x) for v in variables(t)):
                continue
            defs = {k: (v, z3.substitute(u, (x, t))) for k, (v, u) in defs.items()}
            defs[x.sexpr()] = (x, t)
            break
    return list(defs.values())


def _nodes(e: z3.ExprRef):
    """Each distinct application node of ``e`` once (a DAG walk)."""
    todo, seen = [e], set()
    while todo:
        x = todo.pop()
        if x.get_id() in seen or not z3.is_app(x):
            continue
        seen.add(x.get_id())
        yield x
        todo.extend(x.children())


def variables(e: z3.ExprRef) -> list[z3.ExprRef]:
    return [x for x in _nodes(e) if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED]


def _is_product(x: z3.ExprRef) -> bool:
    """A product of two or more non-constants."""
    return x.decl().kind() == z3.Z3_OP_MUL and \
        sum(not z3.is_int_value(c) and not z3.is_rational_value(c) for c in x.children()) > 1


def _has_products(e: z3.ExprRef) -> bool:
    return any(_is_product(x) for x in _nodes(e))


def _lift_ite(e: z3.ExprRef) -> z3.ExprRef:
    """Products of if-then-else terms as if-then-else of products (``n * (m < 0 ? -m : m)``
    -> ``m < 0 ? n * -m : n * m``), so the normal form shares monomials."""
    cache: dict[int, z3.ExprRef] = {}

    def go(x: z3.ExprRef) -> z3.ExprRef:
        i = x.get_id()
        if i in cache:
            return cache[i]
        out = x
        if z3.is_app(x) and x.num_args() > 0:
            ch = [go(c) for c in x.children()]
            out = x.decl()(*ch)
            if x.decl().kind() == z3.Z3_OP_MUL:
                k = next((j for j, c in enumerate(ch) if z3.is_app_of(c, z3.Z3_OP_ITE)), None)
                if k is not None:
                    c = ch[k]
                    out = z3.If(c.arg(0), go(z3.Product(*ch[:k], c.arg(1), *ch[k + 1:])),
                                go(z3.Product(*ch[:k], c.arg(2), *ch[k + 1:])))
        cache[i] = out
        return out

    return go(e)


def linear(e: z3.ExprRef) -> bool:
    """No product of two non-constants, no ``mod``/``div``: Spacer's own theory."""
    return not any(_is_product(x) or x.decl().kind() in (z3.Z3_OP_MOD, z3.Z3_OP_DIV, z3.Z3_OP_IDIV, z3.Z3_OP_REM)
                   for x in _nodes(e))
