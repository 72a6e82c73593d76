"""Horn clauses taken apart: body atoms, a constraint, a head; and the two rewritings
the lemma stage needs: inlining a predicate (resolution on it) and strengthening the
body atoms with lemmas known to hold of every derivable fact.

The clauses come from ``strategies/horn.py`` (through ``bv2int``): each is
``forall vars. guards -> (atoms and constraints -> head)``, the head an atom or false.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import z3


@dataclass(frozen=True, eq=False)  # identity: z3 terms overload ==
class Atom:
    pred: str
    args: tuple[z3.ExprRef, ...]


@dataclass(eq=False)
class Clause:
    """``constraint and atoms -> head`` (``head`` None: false); its constants are
    universally quantified (each clause has its own)."""

    body: list[Atom]
    constraint: z3.BoolRef
    head: Atom | None
    consts: list[z3.ExprRef] = field(default_factory=list)


def normalize(clause: z3.BoolRef, relations: set[str]) -> Clause:
    """A clause as built by the Horn encoding, taken apart."""
    consts: list[z3.ExprRef] = []
    e = clause
    if z3.is_quantifier(e) and e.is_forall():
        consts = [z3.FreshConst(e.var_sort(i), e.var_name(i)) for i in range(e.num_vars())]
        e = z3.substitute_vars(e.body(), *reversed(consts))  # Var(0) is the last bound one
    conj: list[z3.BoolRef] = []
    while z3.is_implies(e):
        conj.extend(conjuncts(e.arg(0)))
        e = e.arg(1)
    head = None if z3.is_false(e) else _atom(e, relations)
    if head is None and not z3.is_false(e):
        raise ValueError(f"a clause head that is no predicate: {e}")
    body, rest = [], []
    for c in conj:
        a = _atom(c, relations)
        if a is not None:
            body.append(a)
        elif not z3.is_true(c):
            rest.append(c)
    ctx = clause.ctx
    return Clause(body, z3.And(*rest) if rest else z3.BoolVal(True, ctx), head, consts)


def conjuncts(e: z3.BoolRef) -> list[z3.BoolRef]:
    return [x for c in e.children() for x in conjuncts(c)] if z3.is_and(e) else [e]


def _atom(e: z3.ExprRef, relations: set[str]) -> Atom | None:
    if z3.is_app(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED and e.decl().name() in relations:
        return Atom(e.decl().name(), tuple(e.children()))
    return None


def rename(c: Clause) -> Clause:
    """A copy with fresh constants (resolution must not share a clause's variables)."""
    fresh = [z3.FreshConst(k.sort(), str(k).split("!")[0]) for k in c.consts]
    pairs = list(zip(c.consts, fresh))
    if not pairs:
        return c

    def sub(x: z3.ExprRef) -> z3.ExprRef:
        return z3.substitute(x, *pairs)

    return Clause([Atom(a.pred, tuple(sub(x) for x in a.args)) for a in c.body], sub(c.constraint),
                  None if c.head is None else Atom(c.head.pred, tuple(sub(x) for x in c.head.args)), fresh)


def inline(clauses: list[Clause], preds: list[str], limit: int) -> list[Clause] | None:
    """The clauses with each of ``preds`` resolved away (every use joined with every
    definition); they must not be recursive (a block that is no loop head). None when
    the clauses would grow past ``limit``."""
    out = list(clauses)
    for p in preds:
        defs = [c for c in out if c.head is not None and c.head.pred == p]
        uses = [c for c in out if any(a.pred == p for a in c.body)]
        if any(c.head is not None and c.head.pred == p for c in uses):
            continue  # recursive after all: keep it
        gone = {id(c) for c in defs + uses}
        others = [c for c in out if id(c) not in gone]
        new = []
        for u in uses:
            partial = [u]
            while any(any(a.pred == p for a in c.body) for c in partial):
                nxt = []
                for c in partial:
                    i = next((k for k, a in enumerate(c.body) if a.pred == p), None)
                    if i is None:
                        nxt.append(c)
                        continue
                    use = c.body[i]
                    for d in defs:
                        d2 = rename(d)
                        assert d2.head is not None
                        eqs = [x == y for x, y in zip(use.args, d2.head.args)]
                        nxt.append(Clause(c.body[:i] + c.body[i + 1:] + d2.body,
                                          z3.And(c.constraint, d2.constraint, *eqs), c.head, c.consts + d2.consts))
                partial = nxt
                if len(others) + len(new) + len(partial) > limit:
                    return None
            new.extend(partial)
        out = others + new
    return out


def strengthen(c: Clause, lemma: Callable[[Atom], z3.BoolRef | None]) -> z3.BoolRef:
    """The clause as a formula, each body atom conjoined with its lemma (sound when the
    lemmas hold of every fact the clauses derive: the least model is unchanged)."""
    ctx = c.constraint.ctx
    parts: list[z3.BoolRef] = [c.constraint]
    for a in c.body:
        parts.append(apply(a, ctx))
        extra = lemma(a)
        if extra is not None:
            parts.append(extra)
    head = apply(c.head, ctx) if c.head is not None else z3.BoolVal(False, ctx)
    fact = z3.Implies(z3.And(*parts), head)
    return z3.ForAll(c.consts, fact) if c.consts else fact


def apply(a: Atom, ctx: z3.Context) -> z3.BoolRef:
    """The atom as a z3 application (its declaration found from the context's names)."""
    sorts = [x.sort() for x in a.args]
    f = z3.Function(a.pred, *sorts, z3.BoolSort(ctx)) if sorts else z3.Bool(a.pred, ctx)
    return f(*a.args) if sorts else f
