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


def live_locals(proc: Procedure) -> dict[tuple[int, int], frozenset[str]]:
    """The local registers live before each statement: ``(block, index)`` (index
    ``len(stmts)`` is the terminator). A register is live when some path from there
    reads it before assigning it (classic backward dataflow)."""

    def uses(x) -> set[str]:
        return {r.name for e in x.exprs() for r in walk(e) if isinstance(r, Reg) and r.scope == "local"}

    def defined(s) -> str | None:
        lhs = getattr(s, "lhs", None)
        return lhs.name if isinstance(lhs, Reg) and lhs.scope == "local" else None

    blocks = proc.blocks
    live_in: dict[int, frozenset[str]] = {b.index: frozenset() for b in blocks}
    preds: dict[int, list[int]] = {b.index: [] for b in blocks}
    for b in blocks:
        for s in b.successors():
            preds.setdefault(s, []).append(b.index)
    by_index = {b.index: b for b in blocks}

    def transfer(b) -> dict[tuple[int, int], frozenset[str]]:
        out: set[str] = set()
        for s in b.successors():
            out |= live_in.get(s, frozenset())
        at: dict[tuple[int, int], frozenset[str]] = {}
        cur = set(out) | (uses(b.term) if b.term is not None else set())
        at[(b.index, len(b.stmts))] = frozenset(cur)
        for i in range(len(b.stmts) - 1, -1, -1):
            s = b.stmts[i]
            d = defined(s)
            if d is not None:
                cur.discard(d)
            cur |= uses(s)
            at[(b.index, i)] = frozenset(cur)
        return at

    work = [b.index for b in blocks]
    while work:
        i = work.pop()
        at = transfer(by_index[i])
        new = at[(i, 0)]
        if new != live_in[i]:
            live_in[i] = new
            work.extend(preds.get(i, []))
    result: dict[tuple[int, int], frozenset[str]] = {}
    for b in blocks:
        result.update(transfer(b))
    return result
