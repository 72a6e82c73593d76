"""Walking z3 terms as DAGs through z3's C API: each shared subterm once, and no Python
wrapper object per node (on an equation of 40,000 terms the wrappers cost 5x the walk)."""

from __future__ import annotations

from typing import Iterator

import z3
from z3 import z3core as C


def leaves(ctx: z3.ContextObj, stack: list, visited: set[int]) -> Iterator[tuple[int, object]]:
    """The leaves of the DAGs on ``stack`` not in ``visited`` (added as they are met):
    (AST id, the constant's application) for a constant, (AST id, None) for a bound
    variable or a quantifier (whose body is walked too); numerals are skipped. Items
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
