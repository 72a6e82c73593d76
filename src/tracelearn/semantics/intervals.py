"""Can a term of a bit-vector path condition wrap around? Bounds propagation says when not.

The integer reading of a path (``linear.py``) holds every sum, difference, product,
shift and narrowing cast in its range. When every bit-vector model of the path keeps
each such term's integer value in its range, every one is a model of that reading, and
the reading's refutation is the bit vectors' too, with no bit-blasting (a path of 300
subtractions, as Euclid's algorithm makes, cost ~0.1 s per bit-vector question).

Terms are read as linear forms over atoms (variables, and any term that is not a sum,
difference, negation, or product or shift by a constant). Atoms start with their type's
range (an extension's, that of the narrower type); a condition comparing two terms (signed, or equal) whose forms
cannot wrap under the bounds so far is an integer inequality, which tightens the atoms'
bounds (each form's others at their extremes), round after round. Every step holds in
every bit-vector model, so the answer errs only towards "may wrap".
"""

from __future__ import annotations

import z3

from ..z3dag import applications

Interval = tuple[int, int]
Form = tuple[dict[int, int], int]  # atom id -> coefficient; the constant

ROUNDS = 16  # of bounds propagation (each one tightens, or the bounds are final)
MAX_KEPT = 200_000  # forms and conditions kept (then read afresh)
# The operators whose relaxed integer reading (``bv2int``) can leave the range: the
# integer reading of a path (``linear.py``) holds these in it (an extraction: a cast to a
# narrower type, read as the value itself)
HELD_IN_RANGE = frozenset({z3.Z3_OP_BADD, z3.Z3_OP_BSUB, z3.Z3_OP_BNEG, z3.Z3_OP_BMUL, z3.Z3_OP_BSHL,
                           z3.Z3_OP_EXTRACT})
# ... and those whose reading may leave it at all (INT_MIN / -1 too)
WRAPPING = HELD_IN_RANGE | {z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I}
_LE = {z3.Z3_OP_SLEQ: 0, z3.Z3_OP_SLT: 1}  # a - b + shift <= 0
_GE = {z3.Z3_OP_SGEQ: 0, z3.Z3_OP_SGT: 1}  # b - a + shift <= 0
_NEGATION = {z3.Z3_OP_SLEQ: z3.Z3_OP_SGT, z3.Z3_OP_SLT: z3.Z3_OP_SGEQ,
             z3.Z3_OP_SGEQ: z3.Z3_OP_SLT, z3.Z3_OP_SGT: z3.Z3_OP_SLEQ}


def signed_range(width: int) -> Interval:
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


class _Forms:
    """Linear forms of terms and the atoms' ranges by their types, kept across
    questions (a path's questions share most of their conditions)."""

    def __init__(self) -> None:
        self.atoms: dict[int, Interval] = {}  # atom id -> the range of its type
        self.forms: dict[int, tuple[z3.ExprRef, Form]] = {}  # with the term: its id stays its

    def _atom(self, t: z3.ExprRef) -> Form:
        i = t.get_id()
        if i not in self.atoms:
            if z3.is_app_of(t, z3.Z3_OP_ZERO_EXT) and t.size() > t.arg(0).size():
                self.atoms[i] = (0, (1 << t.arg(0).size()) - 1)
            elif z3.is_app_of(t, z3.Z3_OP_SIGN_EXT):
                self.atoms[i] = signed_range(t.arg(0).size())
            else:
                self.atoms[i] = signed_range(t.size())
        return {i: 1}, 0

    def form(self, t: z3.ExprRef) -> Form:
        """``t``'s integer value with nothing wrapping, as a linear form."""
        i = t.get_id()
        hit = self.forms.get(i)
        if hit is not None:
            return hit[1]
        out = self._form(t)
        self.forms[i] = (t, out)
        return out

    def _form(self, t: z3.ExprRef) -> Form:
        if z3.is_bv_value(t):
            return {}, t.as_signed_long()
        if not z3.is_app(t):
            return self._atom(t)
        k = t.decl().kind()
        ch = t.children()
        if k == z3.Z3_OP_BADD:
            return _sum([self.form(c) for c in ch])
        if k == z3.Z3_OP_BSUB and len(ch) == 2:
            return _sum([self.form(ch[0]), _scale(self.form(ch[1]), -1)])
        if k == z3.Z3_OP_BNEG:
            return _scale(self.form(ch[0]), -1)
        if k == z3.Z3_OP_BMUL and len(ch) == 2 and any(z3.is_bv_value(c) for c in ch):
            c, x = (ch[0], ch[1]) if z3.is_bv_value(ch[0]) else (ch[1], ch[0])
            return _scale(self.form(x), c.as_signed_long())
        if k == z3.Z3_OP_BSHL and z3.is_bv_value(ch[1]) and ch[1].as_long() < t.size():
            return _scale(self.form(ch[0]), 1 << ch[1].as_long())
        # A sign extension is an atom in the narrower range (its operand may wrap there)
        return self._atom(t)


class _Bounds:
    """The atoms' bounds for one question, tightened by its conditions."""

    def __init__(self, forms: _Forms) -> None:
        self.forms = forms
        self.atoms: dict[int, Interval] = {}

    def range(self, a: int) -> Interval:
        got = self.atoms.get(a)
        return got if got is not None else self.forms.atoms[a]

    def interval(self, f: Form) -> Interval:
        coeffs, c = f
        lo = hi = c
        for a, k in coeffs.items():
            x, y = self.range(a)
            lo += min(k * x, k * y)
            hi += max(k * x, k * y)
        return lo, hi

    def tighten(self, f: Form) -> bool | None:
        """With ``f <= 0`` (a form), tighten the atoms' bounds: changed; None when the
        bounds are empty (no model)."""
        coeffs, c = f
        low = {}
        for a, k in coeffs.items():
            x, y = self.range(a)
            low[a] = min(k * x, k * y)
        total = c + sum(low.values())
        changed = False
        for a, k in coeffs.items():
            room = low[a] - total  # k * x <= room
            lo, hi = self.range(a)
            if k > 0:
                lo2, hi2 = lo, min(hi, room // k)
            else:
                lo2, hi2 = max(lo, -(-room // k)), hi
            if (lo2, hi2) != (lo, hi):
                if lo2 > hi2:
                    return None
                self.atoms[a] = (lo2, hi2)
                changed = True
        return changed

    def tighten_all(self, forms: list[Form]) -> bool | None:
        """``tighten`` with each of ``forms``: changed; None when the bounds are empty."""
        changed = False
        for f in forms:
            r = self.tighten(f)
            if r is None:
                return None
            changed = changed or r
        return changed


def _sum(forms: list[Form]) -> Form:
    out: dict[int, int] = {}
    c = 0
    for coeffs, k in forms:
        c += k
        for a, v in coeffs.items():
            out[a] = out.get(a, 0) + v
    return {a: v for a, v in out.items() if v}, c


def _scale(f: Form, k: int) -> Form:
    return ({a: v * k for a, v in f[0].items()} if k else {}), f[1] * k


def _fits(iv: Interval, width: int) -> bool:
    lo, hi = signed_range(width)
    return lo <= iv[0] and iv[1] <= hi


def _literals(formula: z3.BoolRef) -> list[tuple[int, z3.ExprRef, z3.ExprRef]]:
    """The conjuncts of ``formula`` that compare two bit-vector terms (signed, or
    equal), in order, with the comparison made true."""
    out = []
    todo: list[tuple[z3.ExprRef, bool]] = [(formula, True)]
    while todo:
        f, positive = todo.pop()
        if not z3.is_app(f):
            continue
        k = f.decl().kind()
        if k == z3.Z3_OP_NOT:
            todo.append((f.arg(0), not positive))
        elif (k == z3.Z3_OP_AND and positive) or (k == z3.Z3_OP_OR and not positive):
            todo.extend((c, positive) for c in reversed(f.children()))
        elif (k in _NEGATION or (k == z3.Z3_OP_EQ and positive)) and z3.is_bv(f.arg(0)):
            out.append((k if positive else _NEGATION[k], f.arg(0), f.arg(1)))
    return out


# A condition read: (the compared terms' forms and widths, its forms ``<= 0``)
_Condition = tuple[Form, int, Form, int, list[Form]]
# A term that may wrap, read: (the term, kept alive; what bounds its integer reading:
# "extract" with its operand's form and width, the lowest bit kept and its width;
# "sdiv" with the operands' forms and the width; "product" of unknowns; "fits" with the
# term's form and width)
_Wrap = tuple


def _test_of(forms: _Forms, t: z3.ExprRef) -> _Wrap:
    """What ``WrapCheck._no_wrap`` asks of ``t``: read once (a path's questions ask
    about the same terms, and reading them through z3py again was most of the check)."""
    k = t.decl().kind()
    ch = t.children()
    if k == z3.Z3_OP_EXTRACT:  # the bits from lo up: the value shifted, narrowed
        return t, "extract", forms.form(ch[0]), ch[0].size(), t.params()[1], t.size()
    if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I):  # only INT_MIN / -1 wraps
        return t, "sdiv", forms.form(ch[0]), forms.form(ch[1]), t.size()
    if k == z3.Z3_OP_BMUL and not (len(ch) == 2 and any(z3.is_bv_value(c) for c in ch)):
        return t, "product"  # of unknowns: no linear reading
    return t, "fits", forms.form(t), t.size()


class WrapCheck:
    """``cannot_wrap`` with what it read of each condition kept (the conditions of a
    path's questions are mostly the same terms)."""

    def __init__(self) -> None:
        self.forms = _Forms()
        # formula id -> (the formula, kept alive; its conditions; its wrapping terms, read)
        self._read: dict[int, tuple[z3.BoolRef, list[_Condition], list[_Wrap]]] = {}
        self._tests: dict[int, _Wrap] = {}  # term id -> the term, read

    def _reading(self, f: z3.BoolRef) -> tuple[list[_Condition], list[_Wrap]]:
        hit = self._read.get(f.get_id())
        if hit is None:
            conds = []
            for k, x, y in _literals(f):
                fx, fy = self.forms.form(x), self.forms.form(y)
                if k in _LE:
                    le = [_sum([fx, _scale(fy, -1), ({}, _LE[k])])]
                elif k in _GE:
                    le = [_sum([fy, _scale(fx, -1), ({}, _GE[k])])]
                else:
                    d = _sum([fx, _scale(fy, -1)])
                    le = [d, _scale(d, -1)]
                conds.append((fx, x.size(), fy, y.size(), le))
            tests = []
            for t in applications([f], WRAPPING):
                w = self._tests.get(t.get_id())
                if w is None:
                    w = self._tests[t.get_id()] = _test_of(self.forms, t)
                tests.append(w)
            hit = (f, conds, tests)
            if len(self._read) >= MAX_KEPT:
                self._read.clear()
                self._tests.clear()
            self._read[f.get_id()] = hit
        return hit[1], hit[2]

    def suspects(self, formulas: list[z3.BoolRef]) -> list[int]:
        """The positions of the formulas holding a sum, difference, negation, product or
        shift by a constant, extraction or signed division that may leave its range
        when read over the integers, in some bit-vector model of ``formulas``; none
        when none may (or when they have no model)."""
        if len(self.forms.forms) > MAX_KEPT:
            self.forms = _Forms()
            self._read.clear()
            self._tests.clear()
        readings = [self._reading(f) for f in formulas]
        b = _Bounds(self.forms)
        pending = [c for conds, _ in readings for c in conds]
        active: list[Form] = []
        for _ in range(ROUNDS):
            # In order, each condition's bounds at once: a chain of conditions, each
            # bounding the next one's terms (a recursion's), is read in one round
            changed = False
            still = []
            for cond in pending:
                fx, wx, fy, wy, le = cond
                if _fits(b.interval(fx), wx) and _fits(b.interval(fy), wy):
                    active.extend(le)
                    r = b.tighten_all(le)
                    if r is None:
                        return []  # no bit-vector model at all
                    changed = changed or r
                else:
                    still.append(cond)
            pending = still
            if not changed:
                break
            if b.tighten_all(active) is None:
                return []
        verdict: dict[int, bool] = {}  # (by the read term's identity: one per term)
        out = []
        for i, (_, tests) in enumerate(readings):
            for w in tests:
                ok = verdict.get(id(w))
                if ok is None:
                    ok = verdict[id(w)] = _no_wrap(b, w)
                if not ok:
                    out.append(i)
                    break
        return out

    def __call__(self, formulas: list[z3.BoolRef]) -> bool:
        """True when, in every bit-vector model of ``formulas``, no term of them leaves
        its range when read over the integers (or when they have no model)."""
        return not self.suspects(formulas)


def _no_wrap(b: _Bounds, w: _Wrap) -> bool:
    """The read term's integer reading equals its bit-vector value, given its operands'."""
    kind = w[1]
    if kind == "extract":
        _, _, operand, width, lo_bit, size = w
        lo, hi = b.interval(operand)
        return _fits((lo, hi), width) and _fits((lo >> lo_bit, hi >> lo_bit), size)
    if kind == "sdiv":
        _, _, x, d, size = w
        lo, _ = b.interval(x)
        dlo, dhi = b.interval(d)
        return lo > signed_range(size)[0] or not dlo <= -1 <= dhi
    if kind == "product":
        return False
    return _fits(b.interval(w[2]), w[3])


def cannot_wrap(formulas: list[z3.BoolRef]) -> bool:
    """``WrapCheck`` for one question."""
    return WrapCheck()(formulas)
