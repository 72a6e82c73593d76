"""Candidate lemmas for the predicates of integer Horn clauses, guessed from facts.

For a procedure summary, from rows of concrete calls (``summaries.py``): each output
(the returned value, a global after the call) as a polynomial of degree <= 2 in the
entry values, alone or under a sign condition on one entry value (fitted exactly
over the rationals by z3, with its two's-complement wrap-around as a second
candidate); bounds of each output, of its difference to each entry value, and under
thresholds on one entry value (``n >= 9 -> \\result >= 34``). For an error predicate:
``false`` (no error from any entry state). Every candidate agrees with the rows it
came from; which ones are invariants is decided on the clauses (``houdini.py``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import z3

from .strategies.horn import Predicate

MAX_THRESHOLDS = 24
MAX_PER_PREDICATE = 400


@dataclass
class Candidates:
    params: dict[str, list[z3.ExprRef]] = field(default_factory=dict)  # per predicate: one constant per argument
    lemmas: dict[str, list[z3.BoolRef]] = field(default_factory=dict)  # over those constants


def candidates(preds: list[tuple[Predicate, z3.FuncDeclRef]], rows: dict[str, list[tuple]],
               widths: dict[str, list[int | None]], ctx: z3.Context) -> Candidates:
    """Candidates for each predicate (``preds``: with its declaration in ``ctx``; rows
    and the bit widths of the arguments by predicate name)."""
    out = Candidates()
    for p, f in preds:
        name = f.name()
        args = [z3.Const(f"{name}#{i}", f.domain(i)) for i in range(f.arity())]
        out.params[name] = args
        if p.kind == "err":
            out.lemmas[name] = [z3.BoolVal(False, ctx)]
        elif p.kind == "sum" and rows.get(name):
            out.lemmas[name] = _summary(p, args, rows[name], widths[name], ctx)[:MAX_PER_PREDICATE]
    return out


def _summary(p: Predicate, args: list[z3.ExprRef], rows: list[tuple], widths: list[int | None],
             ctx: z3.Context) -> list[z3.BoolRef]:
    ints = [i for i in range(len(args)) if z3.is_int(args[i]) and all(r[i] is not None for r in rows)]
    xs = [i for i in ints if i < p.n_in]
    ys = [i for i in ints if i >= p.n_in]
    found: dict[str, z3.BoolRef] = {}

    def add(e: z3.BoolRef) -> None:
        e = z3.simplify(e)
        if not z3.is_true(e):
            found.setdefault(e.sexpr(), e)

    for y in ys:
        for guard in [None] + [(x, s) for x in xs for s in (">=", "<")]:
            sub = [r for r in rows if guard is None or (r[guard[0]] >= 0) == (guard[1] == ">=")]
            poly = _fit(xs, y, sub, args, widths[y] or 32, ctx)
            if poly is None:
                continue
            cond = None if guard is None else (args[guard[0]] >= 0 if guard[1] == ">=" else args[guard[0]] < 0)
            for eq in poly:
                add(eq if cond is None else z3.Implies(cond, eq))
    for y in ys:
        vals = [r[y] for r in rows]
        add(args[y] >= min(vals))
        add(args[y] <= max(vals))
        for x in xs:
            d = [r[y] - r[x] for r in rows]
            add(args[y] - args[x] >= min(d))
            add(args[y] - args[x] <= max(d))
    for x in xs:
        ks = sorted({r[x] for r in rows})
        if len(ks) > MAX_THRESHOLDS:
            ks = [ks[round(i * (len(ks) - 1) / (MAX_THRESHOLDS - 1))] for i in range(MAX_THRESHOLDS)]
        for y in ys:
            for k in ks:
                above = [r[y] for r in rows if r[x] >= k]
                below = [r[y] for r in rows if r[x] <= k]
                if len(above) >= 2:
                    add(z3.Implies(args[x] >= k, args[y] >= min(above)))
                    add(z3.Implies(args[x] >= k, args[y] <= max(above)))
                if len(below) >= 2:
                    add(z3.Implies(args[x] <= k, args[y] <= max(below)))
                    add(z3.Implies(args[x] <= k, args[y] >= min(below)))
    return list(found.values())


def _fit(xs: list[int], y: int, rows: list[tuple], args: list[z3.ExprRef], width: int, ctx: z3.Context) -> list[z3.BoolRef] | None:
    """``y`` as a polynomial in ``xs`` that every row satisfies (degree 2 for up to three
    inputs, else 1), exactly; with the wrap-around form when its coefficients are
    integers. None when there is none, or too few distinct points to say."""
    degree = 2 if len(xs) <= 3 else 1
    monos: list[tuple[int, ...]] = [()]
    for d in range(1, degree + 1):
        monos.extend(itertools.combinations_with_replacement(xs, d))
    points = {tuple(r[x] for x in xs): r[y] for r in rows}
    if len(points) < len(monos) + 2:
        return None
    if len({tuple(r[x] for x in xs) for r in rows}) != len(points) or \
            any(points[tuple(r[x] for x in xs)] != r[y] for r in rows):
        return None  # not a function of the inputs
    coeffs = [z3.Real(f"c{i}", ctx) for i in range(len(monos))]
    s = z3.Solver(ctx=ctx)
    s.set("timeout", 2000)
    values = dict(zip(xs, range(len(xs))))
    for pt, v in points.items():
        terms = []
        for c, m in zip(coeffs, monos):
            k = 1
            for x in m:
                k *= pt[values[x]]
            if k:
                terms.append(c * k)
        s.add((z3.Sum(terms) if terms else z3.RealVal(0, ctx)) == v)
    if s.check() != z3.sat:
        return None
    model = s.model()
    frac = []
    for c in coeffs:
        v = model.eval(c, model_completion=True)
        frac.append(Fraction(v.numerator_as_long(), v.denominator_as_long()))
    if all(q == 0 for q in frac[1:]):
        return [args[y] == int(frac[0])] if frac[0].denominator == 1 else None
    den = lcm(*(q.denominator for q in frac))
    terms = []
    for q, m in zip(frac, monos):
        if q:
            t: z3.ArithRef = z3.IntVal(int(q * den), ctx)
            for x in m:
                t = t * args[x]
            terms.append(t)
    poly = z3.Sum(terms) if len(terms) > 1 else terms[0]
    out = [args[y] * den == poly]
    if den == 1:
        out.append(args[y] == _wrap(poly, width, ctx))
    return out


def _wrap(e: z3.ArithRef, w: int, ctx: z3.Context) -> z3.ArithRef:
    lo = -(1 << (w - 1))
    return ((e - lo) % z3.IntVal(1 << w, ctx)) + lo
