"""Bit-vector terms (z3) compiled to Python closures: a symbolic transducer's guards
and outputs evaluated on concrete windows thousands of times, without a z3 call each.

Values are unsigned integers modulo 2^width; a Boolean term gives a bool. A variable
whose value is missing (``None``: before the stream's start) raises ``Undefined``.
The fragment is what z3's simplifier leaves of C integer arithmetic; anything else is
refused at compile time (tests check the closures against z3 on random values).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import z3

from .z3dag import conjuncts, names, signed


class UnsupportedTerm(ValueError):
    """A term outside the transducers' bit-vector terms (floating point, say)."""


class Undefined(Exception):
    """A window variable before the stream's start was read."""


Env = dict[str, int | None]
Fn = Callable[[Env], object]


Cache = dict[int, tuple[z3.ExprRef, Fn]]


def window_vars(t: z3.ExprRef) -> set[int]:
    """The window places ``j`` of the ``w<j>`` a term reads (the one definition of the
    naming: the step walk, the oracle and the transducers all ask it)."""
    return {int(n[1:]) for n in names(t) if n.startswith("w") and n[1:].isdigit()}


def place_of(t: z3.ExprRef) -> int | None:
    """``j`` when ``t`` is the window variable ``w<j>`` itself, else None."""
    if not (z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED):
        return None
    n = t.decl().name()
    return int(n[1:]) if n.startswith("w") and n[1:].isdigit() else None


def unwidened(x: z3.ExprRef) -> z3.ExprRef:
    """``x`` without the sign and zero extensions around it (C's promotions)."""
    while z3.is_app(x) and x.decl().kind() in (z3.Z3_OP_SIGN_EXT, z3.Z3_OP_ZERO_EXT):
        x = x.arg(0)
    return x


@dataclass
class TermFacts:
    """What a stream learner asks of the same terms again and again, computed once per
    term for one learning run: the window places a term reads and its closure. The
    table's letters are the explored steps' conditions, so the walk, the conjectures
    of every round and the oracle ask about the same terms. Keyed by AST id; an entry
    keeps its term, so no id is reused while it exists: an id found is that term (no
    comparison of terms, which cost as much as the walks saved)."""

    _places: dict[int, tuple[z3.ExprRef, frozenset[int]]] = field(default_factory=dict)
    _fns: dict[int, tuple[z3.ExprRef, Fn | None]] = field(default_factory=dict)
    _texts: dict[int, tuple[z3.ExprRef, str]] = field(default_factory=dict)
    _conjuncts: dict[int, tuple[z3.BoolRef, list[z3.BoolRef]]] = field(default_factory=dict)
    compiled: Cache = field(default_factory=dict)  # the subterms compiled (shared by most terms)

    def places(self, t: z3.ExprRef) -> frozenset[int]:
        """:func:`window_vars` of ``t``."""
        hit = self._places.get(t.get_id())
        if hit is None:
            hit = (t, frozenset(window_vars(t)))
            self._places[t.get_id()] = hit
        return hit[1]

    def conjuncts(self, t: z3.BoolRef) -> list[z3.BoolRef]:
        """:func:`z3dag.conjuncts` of ``t`` (a step's condition is split once, not once per
        move compared with it; a composition's conditions are the same guards again)."""
        hit = self._conjuncts.get(t.get_id())
        if hit is None:
            hit = (t, conjuncts(t))
            self._conjuncts[t.get_id()] = hit
        return hit[1]

    def text(self, t: z3.ExprRef) -> str:
        """``t.sexpr()`` (the steps of one state share most of their conditions' conjuncts,
        and z3 prints a term anew each time)."""
        hit = self._texts.get(t.get_id())
        if hit is None:
            hit = (t, t.sexpr())
            self._texts[t.get_id()] = hit
        return hit[1]

    def fn(self, t: z3.ExprRef) -> Fn | None:
        """``t``'s closure, or None when it is outside the compiled fragment."""
        hit = self._fns.get(t.get_id())
        if hit is None:
            try:
                f: Fn | None = compile_term(t, self.compiled)
            except ValueError:
                f = None
            hit = (t, f)
            self._fns[t.get_id()] = hit
        return hit[1]


def compile_term(e: z3.ExprRef, cache: Cache | None = None) -> Fn:
    """``e`` as a closure. ``cache``: shared by the terms of one owner (a transducer's
    guards, a filter's step conditions share most subterms), each subterm compiled once;
    it keeps the terms alive, so their ids are not reused."""
    return _compile(e, cache if cache is not None else {})


def _compile(e: z3.ExprRef, cache: Cache) -> Fn:
    key = e.get_id()
    hit = cache.get(key)
    if hit is not None:
        return hit[1]
    f = _build(e, cache)
    cache[key] = (e, f)
    return f


def _build(e: z3.ExprRef, cache: Cache) -> Fn:  # noqa: C901 - one case per operator
    if z3.is_true(e):
        return lambda env: True
    if z3.is_false(e):
        return lambda env: False
    if z3.is_bv_value(e):
        v = e.as_long()
        return lambda env: v
    k = e.decl().kind()
    if z3.is_const(e) and k == z3.Z3_OP_UNINTERPRETED:
        name = e.decl().name()

        def var(env: Env) -> int:
            v = env.get(name)
            if v is None:
                raise Undefined(name)
            return v
        return var
    args = [_compile(a, cache) for a in e.children()]
    w = e.size() if z3.is_bv(e) else 0
    m = (1 << w) - 1 if w else 0
    w0 = e.arg(0).size() if e.num_args() and z3.is_bv(e.arg(0)) else 0
    a = args[0] if args else None
    b = args[1] if len(args) > 1 else None
    if k == z3.Z3_OP_AND:
        return lambda env: all(f(env) for f in args)
    if k == z3.Z3_OP_OR:
        return lambda env: any(f(env) for f in args)
    if k == z3.Z3_OP_NOT:
        return lambda env: not a(env)
    if k == z3.Z3_OP_EQ:
        return lambda env: a(env) == b(env)
    if k == z3.Z3_OP_DISTINCT:
        return lambda env: len({f(env) for f in args}) == len(args)
    if k == z3.Z3_OP_ITE:
        c = args[0]
        t, f = args[1], args[2]
        return lambda env: t(env) if c(env) else f(env)
    if k == z3.Z3_OP_BADD:
        return lambda env: sum(f(env) for f in args) & m
    if k == z3.Z3_OP_BMUL:
        def mul(env: Env) -> int:
            r = 1
            for f in args:
                r = (r * f(env)) & m
            return r
        return mul
    if k == z3.Z3_OP_BSUB:
        return lambda env: (a(env) - b(env)) & m
    if k == z3.Z3_OP_BNEG:
        return lambda env: (-a(env)) & m
    if k == z3.Z3_OP_BAND:
        def band(env: Env) -> int:
            r = m
            for f in args:
                r &= f(env)
            return r
        return band
    if k == z3.Z3_OP_BOR:
        def bor(env: Env) -> int:
            r = 0
            for f in args:
                r |= f(env)
            return r
        return bor
    if k == z3.Z3_OP_BXOR:
        def bxor(env: Env) -> int:
            r = 0
            for f in args:
                r ^= f(env)
            return r
        return bxor
    if k == z3.Z3_OP_BNOT:
        return lambda env: (~a(env)) & m
    if k in (z3.Z3_OP_SLEQ, z3.Z3_OP_SLT, z3.Z3_OP_SGEQ, z3.Z3_OP_SGT):
        op = {z3.Z3_OP_SLEQ: int.__le__, z3.Z3_OP_SLT: int.__lt__,
              z3.Z3_OP_SGEQ: int.__ge__, z3.Z3_OP_SGT: int.__gt__}[k]
        return lambda env: op(signed(a(env), w0), signed(b(env), w0))
    if k in (z3.Z3_OP_ULEQ, z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT):
        op = {z3.Z3_OP_ULEQ: int.__le__, z3.Z3_OP_ULT: int.__lt__,
              z3.Z3_OP_UGEQ: int.__ge__, z3.Z3_OP_UGT: int.__gt__}[k]
        return lambda env: op(a(env), b(env))
    if k == z3.Z3_OP_SIGN_EXT:
        return lambda env: signed(a(env), w0) & m
    if k == z3.Z3_OP_ZERO_EXT:
        return a
    if k == z3.Z3_OP_EXTRACT:
        hi, lo = e.params()
        mask = (1 << (hi - lo + 1)) - 1
        return lambda env: (a(env) >> lo) & mask
    if k == z3.Z3_OP_CONCAT:
        widths = [c.size() for c in e.children()]

        def concat(env: Env) -> int:
            r = 0
            for f, cw in zip(args, widths):
                r = (r << cw) | f(env)
            return r
        return concat
    if k == z3.Z3_OP_BSHL:
        return lambda env: (a(env) << b(env)) & m if b(env) < w else 0
    if k == z3.Z3_OP_BLSHR:
        return lambda env: a(env) >> b(env) if b(env) < w else 0
    if k == z3.Z3_OP_BASHR:
        return lambda env: (signed(a(env), w) >> min(b(env), w)) & m
    if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I):
        return lambda env: (a(env) // b(env)) if b(env) else m
    if k in (z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I):
        return lambda env: (a(env) % b(env)) if b(env) else a(env)
    if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I):
        def sdiv(env: Env) -> int:
            x, y = signed(a(env), w), signed(b(env), w)
            if y == 0:
                return 1 if x < 0 else m
            q = abs(x) // abs(y)
            return (q if (x < 0) == (y < 0) else -q) & m
        return sdiv
    if k in (z3.Z3_OP_BSREM, z3.Z3_OP_BSREM_I):
        def srem(env: Env) -> int:
            x, y = signed(a(env), w), signed(b(env), w)
            if y == 0:
                return a(env)
            r = abs(x) % abs(y)
            return (-r if x < 0 else r) & m
        return srem
    raise UnsupportedTerm(f"operator {e.decl().name()} is not supported in transducer terms")



class FiniteValues:
    """The values (unsigned) bit-vector terms can take whatever their variables, when
    the variables are read only under conditions (``If(c, a, b)``: ``c`` any) and the
    values are at most ``limit``; and the condition under which a term takes a value,
    written through those conditions. A flag computed without a branch
    (``st ^= (c == 7)``) is such a term: a filter state holding it is one of few
    values, not the window. Memoised by AST id (each entry keeps its term)."""

    def __init__(self, limit: int = 16) -> None:
        self.limit = limit
        self._memo: dict[int, tuple[z3.ExprRef, frozenset[int] | None]] = {}

    def of(self, e: z3.ExprRef) -> frozenset[int] | None:
        hit = self._memo.get(e.get_id())
        if hit is None:
            hit = (e, self._values(e))
            self._memo[e.get_id()] = hit
        return hit[1]

    def _values(self, e: z3.ExprRef) -> frozenset[int] | None:
        if z3.is_bv_value(e):
            return frozenset({e.as_long()})
        if not z3.is_bv(e):
            return None
        leaf = self._leaf(e)
        if leaf is not None:
            return leaf
        if e.num_args() == 0:
            return None  # a variable
        if z3.is_app_of(e, z3.Z3_OP_ITE):
            a, b = self.of(e.arg(1)), self.of(e.arg(2))
            return None if a is None or b is None or len(a | b) > self.limit else a | b
        vals = set()
        for combo in self._combos(e) or [None]:
            if combo is None:
                return None
            vals.add(combo[1])
            if len(vals) > self.limit:
                return None
        return frozenset(vals)

    def _leaf(self, e: z3.ExprRef) -> frozenset[int] | None:
        """The values of a term few by its width (a bit of the input: ``c & 1``, its
        ``Extract(0, 0, c)``), whatever it reads: at most 4 bits, or a mask of at most 4
        bits set; else None."""
        if e.size() <= 4 and not z3.is_bv_value(e):
            return frozenset(range(1 << e.size()))
        if z3.is_app_of(e, z3.Z3_OP_BAND) and e.num_args() == 2:
            for m in e.children():
                if z3.is_bv_value(m) and bin(m.as_long()).count("1") <= 4:
                    bits = [1 << i for i in range(e.size()) if m.as_long() >> i & 1]
                    vals = {0}
                    for b in bits:
                        vals |= {v | b for v in vals}
                    return frozenset(vals)
        return None

    def _combos(self, e: z3.ExprRef) -> list[tuple[tuple[int, ...], int]] | None:
        """Each combination of the values of ``e``'s arguments with ``e``'s value then."""
        kids = e.children()
        if any(not z3.is_bv(x) for x in kids):
            return None
        sets = [self.of(x) for x in kids]
        if any(k is None for k in sets):
            return None
        combos: list[tuple[int, ...]] = [()]
        for k in sets:
            combos = [c + (v,) for c in combos for v in sorted(k)]  # type: ignore[arg-type]
            if len(combos) > self.limit * self.limit:
                return None
        out = []
        for c in combos:
            v = z3.simplify(e.decl()(*[z3.BitVecVal(x, k.size()) for x, k in zip(c, kids)]))
            if not z3.is_bv_value(v):
                return None
            out.append((c, v.as_long()))
        return out

    def comparison(self, c: z3.BoolRef) -> z3.BoolRef | None:
        """The comparison ``c`` (or its negation) of terms of few values written through
        the conditions they choose by (``3 + If(x == 'a', 1, 0) <= 3`` is ``x != 'a'``;
        ``true`` when every value satisfies it), or None when ``c`` is no such."""
        neg = z3.is_not(c)
        if neg:
            c = c.arg(0)
        if not (z3.is_app(c) and c.num_args() == 2 and all(z3.is_bv(x) for x in c.children())):
            return None
        if all(z3.is_bv_value(x) for x in c.children()):
            return None  # (a constant comparison: the simplifier's)
        a, b = self.of(c.arg(0)), self.of(c.arg(1))
        if a is None or b is None or len(a) * len(b) > self.limit * self.limit:
            return None
        wa, wb = c.arg(0).size(), c.arg(1).size()
        cases = []
        for x in sorted(a):
            for y in sorted(b):
                v = z3.simplify(c.decl()(z3.BitVecVal(x, wa), z3.BitVecVal(y, wb)))
                if not z3.is_bool(v) or not (z3.is_true(v) or z3.is_false(v)):
                    return None
                if z3.is_true(v) != neg:
                    cases.append(z3.And(self.condition(c.arg(0), x), self.condition(c.arg(1), y)))
        return z3.simplify(z3.Or(cases)) if len(cases) < len(a) * len(b) else z3.BoolVal(True)

    def condition(self, e: z3.ExprRef, v: int) -> z3.BoolRef:
        """``e == v`` through the conditions ``e`` chooses by: ``If(c, 1, 0) == 1`` is
        ``c``, ``(If(c, 1, 0) + m) % 3 == 2`` a disjunction of such."""
        if z3.is_bv_value(e):
            return z3.BoolVal(e.as_long() == v)
        if self.of(e) is None:
            return e == z3.BitVecVal(v, e.size())
        if v not in self.of(e):  # type: ignore[operator]
            return z3.BoolVal(False)
        if self._leaf(e) is not None:
            return e == z3.BitVecVal(v, e.size())
        if z3.is_app_of(e, z3.Z3_OP_ITE):
            c, a, b = e.arg(0), self.condition(e.arg(1), v), self.condition(e.arg(2), v)
            if z3.is_true(a) and z3.is_false(b):
                return c
            if z3.is_false(a) and z3.is_true(b):
                return z3.Not(c)
            return z3.Or(z3.And(c, a), z3.And(z3.Not(c), b))
        if len(self.of(e)) == 1:  # type: ignore[arg-type]
            return z3.BoolVal(True)
        combos = self._combos(e)
        assert combos is not None  # (the values are known)
        kids = e.children()
        return z3.Or([z3.And([self.condition(k, x) for k, x in zip(kids, c)]) for c, r in combos if r == v])
