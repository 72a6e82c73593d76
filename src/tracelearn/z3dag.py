"""z3 terms through z3's C API: DAG walks (each shared subterm once), the names and
constants in a term, substitution, truth in a model, assertion. No Python wrapper object per node or
value: on an equation of 40,000 terms the wrappers cost 5x the walk, and on a path of
the PAC sampler z3py's checks cost as much as the rest."""

from __future__ import annotations

from typing import Iterator

import z3
from z3 import z3core as C


def leaves(ctx: z3.ContextObj, stack: list, visited: set[int], numerals: list | None = None
           ) -> Iterator[tuple[int, object]]:
    """The leaves of the DAGs on ``stack`` not in ``visited`` (added as they are met):
    (AST id, the constant's application) for a constant, (AST id, None) for a bound
    variable or a quantifier (whose body is walked too); numerals are not yielded
    (with ``numerals``, they are appended to it). Items
    the caller pushes on ``stack`` meanwhile are walked as well. Raw ASTs: the terms
    keep them alive, and a wrapper object per node would cost more than the walk."""
    while stack:
        a = stack.pop()
        key = C.Z3_get_ast_id(ctx, a)
        if key in visited:
            continue
        visited.add(key)
        kind = C.Z3_get_ast_kind(ctx, a)
        if kind == z3.Z3_APP_AST:
            app = C.Z3_to_app(ctx, a)
            n = C.Z3_get_app_num_args(ctx, app)
            if n:
                stack.extend(C.Z3_get_app_arg(ctx, app, i) for i in range(n))
            else:
                yield key, app
        elif kind == z3.Z3_QUANTIFIER_AST:
            stack.append(C.Z3_get_quantifier_body(ctx, a))
            yield key, None
        elif kind != z3.Z3_NUMERAL_AST:
            yield key, None
        elif numerals is not None:
            numerals.append(a)


def bv_numerals(terms: list[z3.ExprRef]) -> set[tuple[int, int]]:
    """The bit-vector numerals in ``terms``, as (unsigned value, width), each shared
    subterm walked once (a learned transducer's guards share most of theirs: walked as
    trees through z3py, a 200-move transducer's took 0.4 s)."""
    if not terms:
        return set()
    ctx = terms[0].ctx_ref()
    found: list = []
    for _ in leaves(ctx, [t.as_ast() for t in terms], set(), found):
        pass
    out: set[tuple[int, int]] = set()
    for a in found:
        s = C.Z3_get_sort(ctx, a)
        if C.Z3_get_sort_kind(ctx, s) == z3.Z3_BV_SORT:
            out.add((int(C.Z3_get_numeral_string(ctx, a)), C.Z3_get_bv_sort_size(ctx, s)))
    return out


def names(t: z3.ExprRef) -> set[str]:
    """The names of the uninterpreted constants of ``t``."""
    ctx = t.ctx_ref()
    out: set[str] = set()
    for _, app in leaves(ctx, [t.as_ast()], set()):
        if app is not None:
            d = C.Z3_get_app_decl(ctx, app)
            if C.Z3_get_decl_kind(ctx, d) == z3.Z3_OP_UNINTERPRETED:
                out.add(C.Z3_get_symbol_string(ctx, C.Z3_get_decl_name(ctx, d)))
    return out


def constants(terms: list[z3.ExprRef]) -> list[z3.ExprRef]:
    """The uninterpreted constants of ``terms`` (each once)."""
    if not terms:
        return []
    ctxobj = terms[0].ctx
    ctx = ctxobj.ref()
    out: list[z3.ExprRef] = []
    for _, app in leaves(ctx, [t.as_ast() for t in terms], set()):
        if app is not None and C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, app)) == z3.Z3_OP_UNINTERPRETED:
            out.append(z3.z3._to_expr_ref(C.Z3_app_to_ast(ctx, app), ctxobj))
    return out


def applications(terms: list[z3.ExprRef], kinds: frozenset[int], seen: set[int] | None = None
                 ) -> list[z3.ExprRef]:
    """The applications in ``terms`` of an operator of one of ``kinds`` (each once), not
    below a term in ``seen`` (the AST ids walked, added to as terms are met)."""
    if not terms:
        return []
    ctxobj = terms[0].ctx
    ctx = ctxobj.ref()
    out: list[z3.ExprRef] = []
    if seen is None:
        seen = set()
    stack = [t.as_ast() for t in terms]
    while stack:
        a = stack.pop()
        key = C.Z3_get_ast_id(ctx, a)
        if key in seen or C.Z3_get_ast_kind(ctx, a) != z3.Z3_APP_AST:
            continue
        seen.add(key)
        app = C.Z3_to_app(ctx, a)
        n = C.Z3_get_app_num_args(ctx, app)
        if n:
            if C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, app)) in kinds:
                out.append(z3.z3._to_expr_ref(a, ctxobj))
            stack.extend(C.Z3_get_app_arg(ctx, app, i) for i in range(n))
    return out


def substitute(t: z3.ExprRef, pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ExprRef:
    """``z3.substitute(t, *pairs)`` without z3py's checks of every pair in Python (the
    callers' pairs are symbols and terms of their sorts, built by the semantics): a
    filter's learning substitutes its definitions into every term it reads back."""
    if not pairs:
        return t
    n = len(pairs)
    src = (z3.Ast * n)(*[a.as_ast() for a, _ in pairs])
    dst = (z3.Ast * n)(*[b.as_ast() for _, b in pairs])
    return z3.z3._to_expr_ref(C.Z3_substitute(t.ctx_ref(), t.as_ast(), n, src, dst), t.ctx)


def conjuncts(t: z3.BoolRef) -> list[z3.BoolRef]:
    """The conjuncts of ``t``, nested conjunctions flattened, ``true`` dropped, in order:
    z3py's ``is_and`` and ``children`` wrap every node (the Sigma* oracle splits a step's
    condition of dozens of conjuncts at every boundary)."""
    ctxobj = t.ctx
    ctx = ctxobj.ref()
    out: list[z3.BoolRef] = []
    stack = [t.as_ast()]
    while stack:
        a = stack.pop()
        if C.Z3_get_ast_kind(ctx, a) == z3.Z3_APP_AST:
            app = C.Z3_to_app(ctx, a)
            kind = C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, app))
            if kind == z3.Z3_OP_AND:
                n = C.Z3_get_app_num_args(ctx, app)
                stack.extend(C.Z3_get_app_arg(ctx, app, i) for i in range(n - 1, -1, -1))
                continue
            if kind == z3.Z3_OP_TRUE:
                continue
        out.append(z3.BoolRef(a, ctxobj))
    return out


def lit_true(t: z3.ExprRef) -> bool:
    """``z3.is_true(t)`` in one C call (z3py's builds three wrappers: its is_true and
    is_false took a tenth of a PAC run's time on a recursive program)."""
    return isinstance(t, z3.ExprRef) and C.Z3_get_bool_value(t.ctx_ref(), t.as_ast()) == z3.Z3_L_TRUE


def lit_false(t: z3.ExprRef) -> bool:
    """``z3.is_false(t)`` in one C call."""
    return isinstance(t, z3.ExprRef) and C.Z3_get_bool_value(t.ctx_ref(), t.as_ast()) == z3.Z3_L_FALSE


def signed(v: int, w: int) -> int:
    """The two's-complement reading of ``v``'s low ``w`` bits (a numeral's, a closure's
    unsigned value)."""
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def holds(model: z3.ModelRef, formulas: list[z3.BoolRef]) -> bool:
    """Is every one of ``formulas`` true in ``model``, completed (inputs it does not
    mention get a value, kept in it)? No wrapper for the values: the path strategy asks
    this of the last model at every branch. Several formulas are evaluated as one
    conjunction: z3 evaluates a term shared among them once (one evaluation each took
    ten times as long on a learning teacher's equation of arrays and floats)."""
    if not formulas:
        return True
    ctx = formulas[0].ctx_ref()
    if len(formulas) == 1:
        term = formulas[0].as_ast()
    else:
        arr = (z3.Ast * len(formulas))(*(f.as_ast() for f in formulas))
        term = C.Z3_mk_and(ctx, len(formulas), arr)
    C.Z3_inc_ref(ctx, term)
    out = (z3.Ast * 1)()
    try:
        # the value lives until the next call into z3: read at once
        return bool(C.Z3_model_eval(ctx, model.model, term, True, out)) and \
            C.Z3_get_bool_value(ctx, out[0]) == z3.Z3_L_TRUE
    finally:
        C.Z3_dec_ref(ctx, term)


def defined_symbol(c: z3.BoolRef) -> int | None:
    """The AST id of ``sym`` when ``c`` is ``sym == term``. (Raw calls: this looks at
    every constraint of the equation, and z3's wrapper objects cost ten times more.)"""
    ctx = c.ctx_ref()
    if C.Z3_get_ast_kind(ctx, c.as_ast()) != z3.Z3_APP_AST:
        return None
    a = C.Z3_to_app(ctx, c.as_ast())
    if C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, a)) != z3.Z3_OP_EQ:
        return None
    lhs = C.Z3_get_app_arg(ctx, a, 0)
    if C.Z3_get_ast_kind(ctx, lhs) != z3.Z3_APP_AST:
        return None
    la = C.Z3_to_app(ctx, lhs)
    if C.Z3_get_app_num_args(ctx, la) or C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, la)) != z3.Z3_OP_UNINTERPRETED:
        return None
    return C.Z3_get_ast_id(ctx, lhs)


def define_fresh(model: z3.ModelRef, constraints: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """Extend ``model`` through the definitions among ``constraints`` (in order: a
    definition uses earlier ones): a symbol ``sym == term`` defines and ``model`` has no
    value for gets the term's value. Returns the other constraints, still to check
    (``holds``): completing a defined symbol with a default value made the definition
    fail, and a path's new check looked unsatisfiable to the last model. Raises
    z3.Z3Exception for a value z3 cannot put into a model."""
    rest = []
    for c in constraints:
        if defined_symbol(c) is not None:
            lhs = c.arg(0)
            if model.get_interp(lhs.decl()) is None:
                model.update_value(lhs, model.eval(c.arg(1), model_completion=True))
                continue
        rest.append(c)
    return rest


def scalar_model(ctx: z3.Context, values: list[tuple[str, object, int]]) -> z3.ModelRef:
    """A model giving each named constant its value: (name, None, 0 or 1) a Boolean,
    (name, width, value) a bit-vector, (name, (exponent bits, significand bits), IEEE-754
    bits) a float. z3 shares a declaration among all its uses of one name and sort, so
    these are the formula's own constants. (Each new term is wrapped before the next
    call: an unreferenced one may be freed under us.)"""
    ref = ctx.ref()
    model = z3.Model(ctx)
    no_domain = (z3.Sort * 0)()
    sorts: dict[object, z3.SortRef] = {None: z3.BoolSort(ctx)}
    truth = (z3.BoolVal(False, ctx), z3.BoolVal(True, ctx))
    for name, width, value in values:
        key = tuple(width) if isinstance(width, (list, tuple)) else width
        sort = sorts.get(key)
        if sort is None:
            sort = sorts[key] = z3.FPSort(*key, ctx) if isinstance(key, tuple) else z3.BitVecSort(key, ctx)
        decl = z3.FuncDeclRef(C.Z3_mk_func_decl(ref, C.Z3_mk_string_symbol(ref, name), 0, no_domain,
                                                sort.ast), ctx)
        if width is None:
            val = truth[bool(value)]
        elif isinstance(key, tuple):
            bits = z3.BitVecNumRef(C.Z3_mk_numeral(ref, str(value), z3.BitVecSort(sum(key), ctx).ast), ctx)
            val = z3.FPNumRef(C.Z3_simplify(ref, C.Z3_mk_fpa_to_fp_bv(ref, bits.as_ast(), sort.ast)), ctx)
        else:
            val = z3.BitVecNumRef(C.Z3_mk_numeral(ref, str(value), sort.ast), ctx)
        C.Z3_add_const_interp(ref, model.model, decl.ast, val.as_ast())
    return model


def smtlib(formulas: list[z3.BoolRef]) -> str:
    """``formulas`` as an SMT-LIB script (declarations and assertions), as z3 prints
    them; without z3py's solver and its per-assertion wrappers."""
    ctx = formulas[0].ctx_ref()
    *rest, last = formulas
    arr = (z3.Ast * len(rest))(*(f.as_ast() for f in rest))
    return C.Z3_benchmark_to_smtlib_string(ctx, "", "", "unknown", "", len(rest), arr, last.as_ast())


def assert_all(solver: z3.Solver, formulas: list[z3.BoolRef]) -> None:
    """``solver.add(*formulas)`` for formulas the semantics built (Booleans already):
    without z3py's cast of each, which cost the path strategy as much as the rest."""
    ctx = solver.ctx.ref()
    for f in formulas:
        C.Z3_solver_assert(ctx, solver.solver, f.as_ast())


def negated(t: z3.BoolRef) -> z3.BoolRef:
    """``z3.Not(t)`` in one C call."""
    return z3.BoolRef(C.Z3_mk_not(t.ctx_ref(), t.as_ast()), t.ctx)


def bool_ite(c: z3.BoolRef, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """``z3.If(c, a, b)`` for Booleans, in one C call."""
    return z3.BoolRef(C.Z3_mk_ite(c.ctx_ref(), c.as_ast(), a.as_ast(), b.as_ast()), c.ctx)


def any_of(terms: list[z3.BoolRef]) -> z3.BoolRef:
    """``z3.Or(*terms)`` without z3py's coercion of every argument in Python (the
    equivalence oracle builds a disjunction per step and conjecture move)."""
    return _nary(C.Z3_mk_or, terms, False)


def all_of(terms: list[z3.BoolRef]) -> z3.BoolRef:
    """``z3.And(*terms)`` as :func:`any_of`."""
    return _nary(C.Z3_mk_and, terms, True)


def _nary(mk, terms: list[z3.BoolRef], unit: bool) -> z3.BoolRef:
    if not terms:
        return z3.BoolVal(unit)
    if len(terms) == 1:
        return terms[0]
    arr = (z3.Ast * len(terms))(*[t.as_ast() for t in terms])
    return z3.BoolRef(mk(terms[0].ctx_ref(), len(terms), arr), terms[0].ctx)
