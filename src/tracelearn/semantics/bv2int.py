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

from collections.abc import Callable

import z3
from z3 import z3core as C

from ..z3dag import signed


class Untranslatable(Exception):
    """A term with no exact linear-integer counterpart."""


def _lo(w: int) -> int:
    return -(1 << (w - 1))


def _hi(w: int) -> int:
    return (1 << (w - 1)) - 1


# the decl kinds of comparisons, with the integer comparison's maker
_SIGNED_CMP = {z3.Z3_OP_SLEQ: C.Z3_mk_le, z3.Z3_OP_SLT: C.Z3_mk_lt, z3.Z3_OP_SGEQ: C.Z3_mk_ge,
               z3.Z3_OP_SGT: C.Z3_mk_gt}
_UNSIGNED_CMP = {z3.Z3_OP_ULEQ: C.Z3_mk_le, z3.Z3_OP_ULT: C.Z3_mk_lt, z3.Z3_OP_UGEQ: C.Z3_mk_ge,
                 z3.Z3_OP_UGT: C.Z3_mk_gt}

_MIRRORED = {C.Z3_mk_eq: C.Z3_mk_eq, C.Z3_mk_le: C.Z3_mk_ge, C.Z3_mk_lt: C.Z3_mk_gt, C.Z3_mk_ge: C.Z3_mk_le,
             C.Z3_mk_gt: C.Z3_mk_lt}


class BvToInt:
    """The translation, through z3's C API on raw ASTs: the PAC bug search reads every
    new path condition over the integers, and z3py's wrapper objects (one per node and
    per operand, each with its reference count) cost more than the translation. The
    terms built are the ones z3py's operators built (the same operators, operands in the
    same order): z3 shares equal terms, so a solver sees exactly what it saw before.
    Every raw AST kept (an input, a reading, an operand) holds a reference of its own
    until the translator goes: z3 may free an unreferenced one at the next call."""

    def __init__(self, ctx: z3.Context, relaxed: bool = False) -> None:
        self.ctx = ctx
        self.relaxed = relaxed
        self._c = ctx.ref()
        # input AST id -> its reading (both referenced: the id is not reused)
        self.cache: dict[int, object] = {}
        self._owned: list[object] = []
        self._nums: dict[int, object] = {}
        self.funcs: dict[str, z3.FuncDeclRef] = {}
        self.I = z3.IntSort(ctx)
        self._isort = self.I.ast

    def __del__(self) -> None:
        try:
            for a in self._owned:
                C.Z3_dec_ref(self._c, a)
        except Exception:  # interpreter shutdown: z3's library may be gone
            pass

    # ------------------------------------------------------------ raw terms

    def _own(self, a: object) -> object:
        C.Z3_inc_ref(self._c, a)
        self._owned.append(a)
        return a

    def _num(self, v: int) -> object:
        hit = self._nums.get(v)
        if hit is None:
            hit = self._nums[v] = self._own(C.Z3_mk_numeral(self._c, str(v), self._isort))
        return hit

    def _nary(self, mk: Callable, xs: list) -> object:
        return self._own(mk(self._c, len(xs), (z3.Ast * len(xs))(*xs)))

    def _bin(self, mk: Callable, a: object, b: object) -> object:
        return self._own(mk(self._c, a, b))

    def _compare(self, mk: Callable, a: object, b: object) -> object:
        """``a == b``, ``a <= b``, ... as z3py built them: Python asks a subclass's
        reflected comparison first, so a term compared with a numeral (z3py's IntNumRef,
        a subclass of ArithRef) became ``numeral == term``, ``numeral >= term``."""
        if self._is_num(b) and not self._is_num(a):
            return self._bin(_MIRRORED[mk], b, a)
        return self._bin(mk, a, b)

    def _is_num(self, a: object) -> bool:
        return C.Z3_get_ast_kind(self._c, a) == z3.Z3_NUMERAL_AST

    def _add(self, a: object, b: object) -> object:
        return self._nary(C.Z3_mk_add, [a, b])

    def _sub(self, a: object, b: object) -> object:
        return self._nary(C.Z3_mk_sub, [a, b])

    def _mul(self, a: object, b: object) -> object:
        return self._nary(C.Z3_mk_mul, [a, b])

    def _neg(self, a: object) -> object:
        return self._own(C.Z3_mk_unary_minus(self._c, a))

    def _ite(self, c: object, a: object, b: object) -> object:
        return self._own(C.Z3_mk_ite(self._c, c, a, b))

    # ------------------------------------------------------------ helpers

    def wrap(self, x: object, w: int) -> object:
        """``x`` (any integer) reduced into width ``w``'s signed range."""
        if self.relaxed:
            return x
        lo = self._num(_lo(w))
        return self._add(self._bin(C.Z3_mk_mod, self._sub(x, lo), self._num(1 << w)), lo)

    def wrap_once(self, x: object, w: int) -> object:
        """``x`` within one turn of the range (a sum or difference of two values)."""
        if self.relaxed:
            return x
        m = self._num(1 << w)
        below = self._ite(self._bin(C.Z3_mk_lt, x, self._num(_lo(w))), self._add(x, m), x)
        return self._ite(self._bin(C.Z3_mk_gt, x, self._num(_hi(w))), self._sub(x, m), below)

    def unsigned(self, x: object, w: int) -> object:
        return self._ite(self._bin(C.Z3_mk_lt, x, self._num(0)), self._add(x, self._num(1 << w)), x)

    def signed_of_unsigned(self, x: object, w: int) -> object:
        return self._ite(self._bin(C.Z3_mk_gt, x, self._num(_hi(w))), self._sub(x, self._num(1 << w)), x)

    def trunc_div(self, a: object, c: int) -> object:
        """C's (and SMT-LIB's bvsdiv) division, truncating, by a constant ``c`` > 0."""
        k = self._num(c)
        return self._ite(self._bin(C.Z3_mk_ge, a, self._num(0)), self._bin(C.Z3_mk_div, a, k),
                         self._neg(self._bin(C.Z3_mk_div, self._neg(a), k)))

    def _const(self, a: object) -> int | None:
        """The signed value of a bit-vector numeral, else None."""
        c = self._c
        if C.Z3_get_ast_kind(c, a) != z3.Z3_NUMERAL_AST:
            return None
        s = C.Z3_get_sort(c, a)
        if C.Z3_get_sort_kind(c, s) != z3.Z3_BV_SORT:
            return None
        return signed(int(C.Z3_get_numeral_string(c, a)), C.Z3_get_bv_sort_size(c, s))

    def _width(self, a: object) -> int | None:
        """The width of a bit-vector term, None for another sort."""
        s = C.Z3_get_sort(self._c, a)
        return C.Z3_get_bv_sort_size(self._c, s) if C.Z3_get_sort_kind(self._c, s) == z3.Z3_BV_SORT else None

    def _narrow(self, a: object, w: int) -> bool:
        """``a`` is a value of at most ``w - 1`` bits widened to ``w``: a sum or
        difference of two such values fits ``w`` bits."""
        c = self._c
        if C.Z3_get_ast_kind(c, a) == z3.Z3_APP_AST:
            app = C.Z3_to_app(c, a)
            if C.Z3_get_decl_kind(c, C.Z3_get_app_decl(c, app)) == z3.Z3_OP_SIGN_EXT:
                return self._width(C.Z3_get_app_arg(c, app, 0)) < w
        v = self._const(a)
        return v is not None and -(1 << (w - 2)) <= v < (1 << (w - 2))

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
        return z3.z3._to_expr_ref(self.term_ast(x.as_ast()), self.ctx)

    def held_in_range(self, f: z3.BoolRef, terms: list[z3.ExprRef]) -> z3.BoolRef:
        """The reading of ``f`` and of each bit-vector term of ``terms`` held in its
        signed range: ``And(f', t' >= lo, t' < hi, ...)`` (``semantics/linear.py``)."""
        parts = [self.term_ast(f.as_ast())]
        for t in terms:
            a = t.as_ast()
            v, w = self.term_ast(a), self._width(a) or 1
            parts += [self._bin(C.Z3_mk_ge, v, self._num(_lo(w))), self._bin(C.Z3_mk_lt, v, self._num(1 << (w - 1)))]
        return z3.BoolRef(self._nary(C.Z3_mk_and, parts), self.ctx)

    def term_ast(self, a: object) -> object:
        """The reading of the raw AST ``a`` (raw, referenced by the translator)."""
        key = C.Z3_get_ast_id(self._c, a)
        hit = self.cache.get(key)
        if hit is None:
            hit = self._term(a)
            self._own(a)
            self.cache[key] = hit
        return hit

    def _term(self, x: object) -> object:
        c = self._c
        kind = C.Z3_get_ast_kind(c, x)
        if kind == z3.Z3_NUMERAL_AST:
            v = self._const(x)
            if v is not None:
                return self._num(v)
        elif kind != z3.Z3_APP_AST:
            raise Untranslatable(f"term {z3.z3._to_expr_ref(x, self.ctx).sexpr()[:60]}")
        app = C.Z3_to_app(c, x)
        d = C.Z3_get_app_decl(c, app)
        k = C.Z3_get_decl_kind(c, d)
        if k in (z3.Z3_OP_TRUE, z3.Z3_OP_FALSE):
            return self._own(x)
        n = C.Z3_get_app_num_args(c, app)
        ch = [C.Z3_get_app_arg(c, app, i) for i in range(n)]
        if k == z3.Z3_OP_UNINTERPRETED:
            return self._uninterpreted(x, d, ch)
        t = self.term_ast
        if k == z3.Z3_OP_AND:
            return self._nary(C.Z3_mk_and, [t(a) for a in ch])
        if k == z3.Z3_OP_OR:
            return self._nary(C.Z3_mk_or, [t(a) for a in ch])
        if k == z3.Z3_OP_NOT:
            return self._own(C.Z3_mk_not(c, t(ch[0])))
        if k == z3.Z3_OP_IMPLIES:
            return self._bin(C.Z3_mk_implies, t(ch[0]), t(ch[1]))
        if k == z3.Z3_OP_XOR:
            return self._bin(C.Z3_mk_xor, t(ch[0]), t(ch[1]))
        if k == z3.Z3_OP_ITE:
            return self._ite(t(ch[0]), t(ch[1]), t(ch[2]))
        if k == z3.Z3_OP_EQ:
            return self._compare(C.Z3_mk_eq, t(ch[0]), t(ch[1]))
        if k == z3.Z3_OP_DISTINCT:
            return self._nary(C.Z3_mk_distinct, [t(a) for a in ch])
        w = self._width(ch[0]) if ch else None
        if w is None:
            raise Untranslatable(f"operator {z3.FuncDeclRef(d, self.ctx).name()}")
        return self._bv(x, k, d, ch, [t(b) for b in ch], w)

    def _uninterpreted(self, x: object, d: object, ch: list) -> object:
        c = self._c
        if ch:
            f = self.func(z3.FuncDeclRef(d, self.ctx))
            return self._nary(lambda ctx, m, arr: C.Z3_mk_app(ctx, f.ast, m, arr), [self.term_ast(a) for a in ch])
        s = C.Z3_get_sort(c, x)
        kind = C.Z3_get_sort_kind(c, s)
        if kind == z3.Z3_BV_SORT:
            s = self._isort
        elif kind != z3.Z3_BOOL_SORT:
            raise Untranslatable(f"sort {z3.SortRef(s, self.ctx)}")
        sym = C.Z3_get_decl_name(c, d)
        if C.Z3_get_symbol_kind(c, sym) != z3.Z3_STRING_SYMBOL:  # as z3py's name() reads it
            sym = C.Z3_mk_string_symbol(c, f"k!{C.Z3_get_symbol_int(c, sym)}")
        return self._own(C.Z3_mk_const(c, sym, s))

    def _bv(self, x: object, k: int, d: object, ch: list, a: list, w: int) -> object:
        """A bit-vector operator ``k`` of width-``w`` operands ``ch`` (read: ``a``)."""
        if k in _SIGNED_CMP:
            return self._compare(_SIGNED_CMP[k], a[0], a[1])
        if k in _UNSIGNED_CMP:
            return self._bin(_UNSIGNED_CMP[k], self.unsigned(a[0], w), self.unsigned(a[1], w))
        if k in (z3.Z3_OP_BADD, z3.Z3_OP_BSUB) and len(ch) == 2 and all(self._narrow(b, w) for b in ch):
            # cannot wrap: an exact check's sum
            return self._add(a[0], a[1]) if k == z3.Z3_OP_BADD else self._sub(a[0], a[1])
        if k == z3.Z3_OP_BADD:
            acc = a[0]
            for b in a[1:]:
                acc = self.wrap_once(self._add(acc, b), w)
            return acc
        if k == z3.Z3_OP_BSUB:
            return self.wrap_once(self._sub(a[0], a[1]), w)
        if k == z3.Z3_OP_BNEG:
            return self.wrap_once(self._neg(a[0]), w)
        if k == z3.Z3_OP_BNOT:
            return self._sub(self._neg(a[0]), self._num(1))  # ~x = -x - 1, never out of range
        if k == z3.Z3_OP_BMUL:
            consts = [self._const(b) for b in ch]
            if sum(v is None for v in consts) > 1:
                raise Untranslatable("product of two variables")
            factor = 1
            for v in consts:
                if v is not None:
                    factor *= v
            rest = [r for r, v in zip(a, consts) if v is None]
            if not rest:
                return self._num(self._const(C.Z3_simplify(self._c, x)))
            product = self._mul(rest[0], self._num(factor))
            return product if factor in (0, 1) else self.wrap(product, w)
        if k in (z3.Z3_OP_BSMUL_NO_OVFL, z3.Z3_OP_BSMUL_NO_UDFL, z3.Z3_OP_BUMUL_NO_OVFL):
            consts = [self._const(b) for b in ch]
            if all(v is None for v in consts):
                raise Untranslatable("overflow check of a product of two variables")
            f, v = (consts[0], a[1]) if consts[0] is not None else (consts[1], a[0])
            if k == z3.Z3_OP_BUMUL_NO_OVFL:
                return self._bin(C.Z3_mk_le, self._mul(self.unsigned(v, w), self._num(f % (1 << w))),
                                 self._num((1 << w) - 1))
            if k == z3.Z3_OP_BSMUL_NO_OVFL:
                return self._bin(C.Z3_mk_le, self._mul(v, self._num(f)), self._num(_hi(w)))
            return self._bin(C.Z3_mk_ge, self._mul(v, self._num(f)), self._num(_lo(w)))
        if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I, z3.Z3_OP_BSREM, z3.Z3_OP_BSREM_I):
            f = self._const(ch[1])
            if f is None or f == 0:
                raise Untranslatable("division by a variable")
            q = self.trunc_div(a[0], f) if f > 0 else self._neg(self.trunc_div(a[0], -f))
            if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I):
                return self.wrap_once(q, w)  # INT_MIN / -1 wraps
            return self._sub(a[0], self._mul(q, self._num(f)))
        if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I, z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I):
            f = self._const(ch[1])
            f = 0 if f is None else f % (1 << w)
            if f == 0:
                raise Untranslatable("division by a variable")
            mk = C.Z3_mk_div if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I) else C.Z3_mk_mod
            return self.signed_of_unsigned(self._bin(mk, self.unsigned(a[0], w), self._num(f)), w)
        if k == z3.Z3_OP_SIGN_EXT:
            return a[0]
        if k == z3.Z3_OP_ZERO_EXT:
            return self.unsigned(a[0], w) if (self._width(x) or 0) > w else a[0]
        if k == z3.Z3_OP_EXTRACT:
            hi, lo = C.Z3_get_decl_int_parameter(self._c, d, 0), C.Z3_get_decl_int_parameter(self._c, d, 1)
            # floor division: the bits above lo
            v = self._bin(C.Z3_mk_div, a[0], self._num(1 << lo)) if lo else a[0]
            return self.wrap(v, hi - lo + 1) if hi + 1 < w or lo else v
        if k == z3.Z3_OP_CONCAT:
            acc = a[0]  # the high part keeps its sign
            for part, b in zip(a[1:], ch[1:]):
                size = self._width(b) or 0
                acc = self._add(self._mul(acc, self._num(1 << size)), self.unsigned(part, size))
            return acc
        if k in (z3.Z3_OP_BSHL, z3.Z3_OP_BASHR, z3.Z3_OP_BLSHR):
            return self._shift(k, a[0], self._const(ch[1]), w)
        if k == z3.Z3_OP_BAND:
            consts = [self._const(b) for b in ch]
            if len(ch) == 2 and consts[1] is not None and consts[1] >= 0 and consts[1] & (consts[1] + 1) == 0:
                return self._bin(C.Z3_mk_mod, self.unsigned(a[0], w), self._num(consts[1] + 1))  # x & (2^k - 1)
            raise Untranslatable("bitwise and")
        raise Untranslatable(f"operator {z3.FuncDeclRef(d, self.ctx).name()}")

    def _shift(self, k: int, a: object, s: int | None, w: int) -> object:
        if s is None:
            raise Untranslatable("shift by a variable")
        s %= 1 << w  # the amount unsigned
        if s >= w:
            if k != z3.Z3_OP_BASHR:
                return self._num(0)
            return self._ite(self._bin(C.Z3_mk_lt, a, self._num(0)), self._num(-1), self._num(0))
        if k == z3.Z3_OP_BSHL:
            return self.wrap(self._mul(a, self._num(1 << s)), w)
        if k == z3.Z3_OP_BASHR:
            return self._bin(C.Z3_mk_div, a, self._num(1 << s))  # floor division: an arithmetic shift
        return self.signed_of_unsigned(self._bin(C.Z3_mk_div, self.unsigned(a, w), self._num(1 << s)), w)


def to_int_clauses(clauses: list[z3.BoolRef], ctx: z3.Context) -> tuple[list[z3.BoolRef], dict[str, z3.FuncDeclRef]]:
    """The clauses over integers, and the new predicates by name; raises ``Untranslatable``."""
    tr = BvToInt(ctx)
    return [tr.clause(c) for c in clauses], tr.funcs
