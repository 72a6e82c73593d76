"""Small structural queries on IR procedures."""

from __future__ import annotations

from .expr import AddrOf, Expr, Reg, walk
from .program import Branch, Call, Procedure, Return


def _exprs(proc: Procedure):
    for b in proc.blocks:
        for s in b.stmts:
            for attr in ("rhs", "cond", "size", "ptr", "target"):
                v = getattr(s, attr, None)
                if isinstance(v, Expr):
                    yield v
            if isinstance(s, Call):
                yield from s.args
            lhs = getattr(s, "lhs", None)
            if lhs is not None and hasattr(lhs, "addr"):
                yield lhs.addr
        t = b.term
        if isinstance(t, Branch):
            yield t.cond
        elif isinstance(t, Return) and t.value is not None:
            yield t.value


def used_params(proc: Procedure) -> set[str]:
    """Names of the parameters the body reads (registers or their memory copies)."""
    names = {p.name for p in proc.params}
    used: set[str] = set()
    for e in _exprs(proc):
        for x in walk(e):
            if isinstance(x, (Reg, AddrOf)) and x.name in names:
                used.add(x.name)
    return used
