"""Small structural queries on IR procedures."""

from __future__ import annotations

from .expr import AddrOf, Reg, walk
from .program import Procedure


def _exprs(proc: Procedure):
    for b in proc.blocks:
        yield from b.exprs()


def used_params(proc: Procedure) -> set[str]:
    """Names of the parameters the body reads (registers or their memory copies)."""
    names = {p.name for p in proc.params}
    used: set[str] = set()
    for e in _exprs(proc):
        for x in walk(e):
            if isinstance(x, (Reg, AddrOf)) and x.name in names:
                used.add(x.name)
    return used
