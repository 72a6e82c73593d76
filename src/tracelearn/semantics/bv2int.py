"""Bit-vector Horn clauses as integer Horn clauses with the same meaning.

Spacer finds invariants over linear integer arithmetic far better than over
bit-vectors. This translation keeps the program's meaning exactly: a bit-vector of
width w becomes the integer it denotes in two's complement, in [-2^(w-1), 2^(w-1));
every operation wraps explicitly (an addition wraps at most once, so one
if-then-else; a product by a constant takes a ``mod``); every universally quantified
variable gets its range. Operations with no exact linear counterpart (a product of two
variables, bit operations other than masks and shifts by constants, division by a
variable) raise ``Untranslatable``: the caller keeps the bit-vector clauses.

``relaxed``: nothing wraps (the integer reading of the terms, as a tool solving over
the integers reads them): no longer the same meaning, but linear where the exact one
needs if-then-elses and ``mod`` (see ``semantics/linear.py``).
"""

from __future__ import annotations

import z3


class Untranslatable(Exception):
    """A term with no exact linear-integer counterpart."""


def _lo(w: int) -> int:
    return -(1 << (w - 1))


def _hi(w: int) -> int:
    return (1 << (w - 1)) - 1


class BvToInt:
    def __init__(self, ctx: z3.Context, relaxed: bool = False) -> None:
        self.ctx = ctx
        self.relaxed = relaxed
        # by AST id, with the term itself: it stays alive, so its id is not reused
        self.cache: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
        self.funcs: dict[str, z3.FuncDeclRef] = {}
        self.I = z3.IntSort(ctx)

    # ------------------------------------------------------------ helpers

    def num(self, v: int) -> z3.IntNumRef:
        return z3.IntVal(v, self.ctx)

    def wrap(self, x: z3.ArithRef, w: int) -> z3.ArithRef:
        """``x`` (any integer) reduced into width ``w``'s signed range."""
        if self.relaxed:
            return x
        return ((x - _lo(w)) % self.num(1 << w)) + _lo(w)

    def wrap_once(self, x: z3.ArithRef, w: int) -> z3.ArithRef:
        """``x`` within one turn of the range (a sum or difference of two values)."""
        if self.relaxed:
            return x
        m = 1 << w
        return z3.If(x > _hi(w), x - m, z3.If(x < _lo(w), x + m, x))

    def unsigned(self, x: z3.ArithRef, w: int) -> z3.ArithRef:
        return z3.If(x < 0, x + self.num(1 << w), x)

    def signed_of_unsigned(self, x: z3.ArithRef, w: int) -> z3.ArithRef:
        return z3.If(x > _hi(w), x - self.num(1 << w), x)

    def trunc_div(self, a: z3.ArithRef, c: int) -> z3.ArithRef:
        """C's (and SMT-LIB's bvsdiv) division, truncating, by a constant ``c`` > 0."""
        return z3.If(a >= 0, a / c, -((-a) / c))

    @staticmethod
    def const_value(x: z3.ExprRef) -> int | None:
        if z3.is_bv_value(x):
            v, w = x.as_long(), x.size()
            return v - (1 << w) if v >> (w - 1) else v
        return None

    # --------------------------------------------------------------- sorts

    def sort(self, s: z3.SortRef) -> z3.SortRef:
        if z3.is_bv_sort(s):
            return self.I
        if s.kind() == z3.Z3_BOOL_SORT:
            return s
        raise Untranslatable(f"sort {s}")

    def func(self, f: z3.FuncDeclRef) -> z3.FuncDeclRef:
        name = f.name()
        if name not in self.funcs:
            doms = [self.sort(f.domain(i)) for i in range(f.arity())]
            self.funcs[name] = z3.Function(name, *doms, self.sort(f.range()))
        return self.funcs[name]

    # --------------------------------------------------------------- terms

    def clause(self, c: z3.BoolRef) -> z3.BoolRef:
        """A clause ``ForAll(vars, body -> head)``: its variables range over their widths."""
        if z3.is_quantifier(c):
            n = c.num_vars()
            names = [c.var_name(i) for i in range(n)]
            sorts = [c.var_sort(i) for i in range(n)]
            bound = [z3.Const(f"{nm}!{i}", s) for i, (nm, s) in enumerate(zip(names, sorts))]
            # de Bruijn: Var(0) is the last bound variable
            body = z3.substitute_vars(c.body(), *reversed(bound))
            fresh = [z3.Const(b.decl().name(), self.sort(s)) for b, s in zip(bound, sorts)]
            ranges = [z3.And(v >= _lo(s.size()), v <= _hi(s.size())) for v, s in zip(fresh, sorts) if z3.is_bv_sort(s)]
            t = self.term(body)
            inner = z3.Implies(z3.And(*ranges), t) if ranges else t
            return z3.ForAll(fresh, inner) if fresh else inner
        return self.term(c)

    def term(self, x: z3.ExprRef) -> z3.ExprRef:
        i = x.get_id()
        hit = self.cache.get(i)
        if hit is not None and hit[0].eq(x):
            return hit[1]
        out = self._term(x)
        self.cache[i] = (x, out)
        return out

    def _term(self, x: z3.ExprRef) -> z3.ExprRef:
        if z3.is_bv_value(x):
            return self.num(self.const_value(x))
        if z3.is_true(x) or z3.is_false(x):
            return x
        if not z3.is_app(x):
            raise Untranslatable(f"term {x.sexpr()[:60]}")
        d = x.decl()
        k = d.kind()
        ch = x.children()
        if k == z3.Z3_OP_UNINTERPRETED:
            if not ch:
                return z3.Const(d.name(), self.sort(x.sort()))
            return self.func(d)(*[self.term(c) for c in ch])
        t = self.term
        if k == z3.Z3_OP_AND:
            return z3.And(*[t(c) for c in ch])
        if k == z3.Z3_OP_OR:
            return z3.Or(*[t(c) for c in ch])
        if k == z3.Z3_OP_NOT:
            return z3.Not(t(ch[0]))
        if k == z3.Z3_OP_IMPLIES:
            return z3.Implies(t(ch[0]), t(ch[1]))
        if k == z3.Z3_OP_XOR and ch[0].sort().kind() == z3.Z3_BOOL_SORT:
            return z3.Xor(t(ch[0]), t(ch[1]))
        if k == z3.Z3_OP_ITE:
            return z3.If(t(ch[0]), t(ch[1]), t(ch[2]))
        if k == z3.Z3_OP_EQ:
            return t(ch[0]) == t(ch[1])
        if k == z3.Z3_OP_DISTINCT:
            return z3.Distinct(*[t(c) for c in ch])
        if not ch or not z3.is_bv(ch[0]):
            raise Untranslatable(f"operator {d.name()}")
        w = ch[0].size()
        a = [t(c) for c in ch]
        if k == z3.Z3_OP_SLEQ:
            return a[0] <= a[1]
        if k == z3.Z3_OP_SLT:
            return a[0] < a[1]
        if k == z3.Z3_OP_SGEQ:
            return a[0] >= a[1]
        if k == z3.Z3_OP_SGT:
            return a[0] > a[1]
        if k in (z3.Z3_OP_ULEQ, z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT):
            u, v = self.unsigned(a[0], w), self.unsigned(a[1], w)
            return {z3.Z3_OP_ULEQ: u <= v, z3.Z3_OP_ULT: u < v, z3.Z3_OP_UGEQ: u >= v, z3.Z3_OP_UGT: u > v}[k]
        if k in (z3.Z3_OP_BADD, z3.Z3_OP_BSUB) and len(ch) == 2 and all(_narrow(c, w) for c in ch):
            return a[0] + a[1] if k == z3.Z3_OP_BADD else a[0] - a[1]  # cannot wrap: an exact check's sum
        if k == z3.Z3_OP_BADD:
            acc = a[0]
            for b in a[1:]:
                acc = self.wrap_once(acc + b, w)
            return acc
        if k == z3.Z3_OP_BSUB:
            return self.wrap_once(a[0] - a[1], w)
        if k == z3.Z3_OP_BNEG:
            return self.wrap_once(-a[0], w)
        if k == z3.Z3_OP_BNOT:
            return -a[0] - 1  # ~x = -x - 1, never out of range
        if k == z3.Z3_OP_BMUL:
            consts = [self.const_value(c) for c in ch]
            if sum(c is None for c in consts) > 1:
                raise Untranslatable("product of two variables")
            factor = 1
            rest = [v for v, c in zip(a, consts) if c is None]
            for c in consts:
                if c is not None:
                    factor *= c
            if not rest:
                return self.num(self.const_value(z3.simplify(x)))
            if factor in (0, 1):
                return rest[0] * factor
            return self.wrap(rest[0] * factor, w)
        if k in (z3.Z3_OP_BSMUL_NO_OVFL, z3.Z3_OP_BSMUL_NO_UDFL, z3.Z3_OP_BUMUL_NO_OVFL):
            consts = [self.const_value(c) for c in ch]
            if all(c is None for c in consts):
                raise Untranslatable("overflow check of a product of two variables")
            c, v = (consts[0], a[1]) if consts[0] is not None else (consts[1], a[0])
            if k == z3.Z3_OP_BUMUL_NO_OVFL:
                return self.unsigned(v, w) * (c % (1 << w)) <= (1 << w) - 1
            return v * c <= _hi(w) if k == z3.Z3_OP_BSMUL_NO_OVFL else v * c >= _lo(w)
        if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I, z3.Z3_OP_BSREM, z3.Z3_OP_BSREM_I):
            c = self.const_value(ch[1])
            if c is None or c == 0:
                raise Untranslatable("division by a variable")
            q = self.trunc_div(a[0], c) if c > 0 else -self.trunc_div(a[0], -c)
            if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I):
                return self.wrap_once(q, w)  # INT_MIN / -1 wraps
            return a[0] - q * c
        if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I, z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I):
            c = ch[1].as_long() if z3.is_bv_value(ch[1]) else 0
            if c == 0:
                raise Untranslatable("division by a variable")
            u = self.unsigned(a[0], w)
            r = u / c if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I) else u % c
            return self.signed_of_unsigned(r, w)
        if k == z3.Z3_OP_SIGN_EXT:
            return a[0]
        if k == z3.Z3_OP_ZERO_EXT:
            return self.unsigned(a[0], w) if x.size() > w else a[0]
        if k == z3.Z3_OP_EXTRACT:
            hi, lo = d.params()
            v = a[0] / (1 << lo) if lo else a[0]  # floor division: the bits above lo
            return self.wrap(v, hi - lo + 1) if hi + 1 < w or lo else v
        if k == z3.Z3_OP_CONCAT:
            acc, width = a[0], ch[0].size()  # the high part keeps its sign
            for part, c in zip(a[1:], ch[1:]):
                acc = acc * (1 << c.size()) + self.unsigned(part, c.size())
                width += c.size()
            return acc
        if k in (z3.Z3_OP_BSHL, z3.Z3_OP_BASHR, z3.Z3_OP_BLSHR):
            s = ch[1].as_long() if z3.is_bv_value(ch[1]) else None
            if s is None:
                raise Untranslatable("shift by a variable")
            if s >= w:
                return self.num(0) if k != z3.Z3_OP_BASHR else z3.If(a[0] < 0, self.num(-1), self.num(0))
            if k == z3.Z3_OP_BSHL:
                return self.wrap(a[0] * (1 << s), w)
            if k == z3.Z3_OP_BASHR:
                return a[0] / (1 << s)  # floor division: an arithmetic shift
            return self.signed_of_unsigned(self.unsigned(a[0], w) / (1 << s), w)
        if k == z3.Z3_OP_BAND:
            consts = [self.const_value(c) for c in ch]
            if len(ch) == 2 and consts[1] is not None and consts[1] >= 0 and consts[1] & (consts[1] + 1) == 0:
                return self.unsigned(a[0], w) % (consts[1] + 1)  # x & (2^k - 1)
            raise Untranslatable("bitwise and")
        raise Untranslatable(f"operator {d.name()}")


def _narrow(x: z3.ExprRef, w: int) -> bool:
    """``x`` is a value of at most ``w - 1`` bits widened to ``w``: a sum or difference
    of two such values fits ``w`` bits."""
    if z3.is_app_of(x, z3.Z3_OP_SIGN_EXT):
        return x.children()[0].size() < w
    v = BvToInt.const_value(x)
    return v is not None and -(1 << (w - 2)) <= v < (1 << (w - 2))


def to_int_clauses(clauses: list[z3.BoolRef], ctx: z3.Context) -> tuple[list[z3.BoolRef], dict[str, z3.FuncDeclRef]]:
    """The clauses over integers, and the new predicates by name; raises ``Untranslatable``."""
    tr = BvToInt(ctx)
    return [tr.clause(c) for c in clauses], tr.funcs
