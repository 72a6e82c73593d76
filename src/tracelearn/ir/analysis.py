"""Small structural queries on IR procedures."""

from __future__ import annotations

from dataclasses import dataclass

from .expr import AddrOf, Binary, Cast, Const, Expr, Reg, walk
from .program import Assign, Branch, Call, Procedure, Return, SourceLoc
from .types import IntType


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


_COMPARISONS = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})


@dataclass(frozen=True)
class Counter:
    """A local integer register that is only set to constants, increased by positive
    constants (or by a comparison, 0 or 1) and compared with constants in branch
    conditions. Every value above
    ``above`` takes the same branches, so two states that differ only in such values
    have the same futures, until the counter passes its type's ``maximum`` and wraps.

    A counter only decreased (``sign`` -1) is the same in the other direction: its
    fields are in units of :meth:`progress` (minus the value): ``above`` is minus the
    smallest constant it is compared with, ``start`` minus the smallest it is set to,
    ``maximum`` minus its type's minimum."""

    name: str
    display: str
    above: int  # the largest constant it is compared with
    start: int  # the largest constant it is set to
    step: int  # the largest constant it is increased by (0: never increased, never wraps)
    maximum: int
    signed: bool
    loc: SourceLoc
    compared: bool = True  # False: no branch reads it, so its value never matters
    sign: int = 1  # 1: increased, -1: decreased

    def progress(self, v: int) -> int:
        """How far the value ``v`` lies in the counter's direction (the fields' unit;
        the inverse is the same map)."""
        return self.sign * v

    @property
    def beyond(self) -> str:
        """The values taken as one, in words."""
        return f"above {self.above}" if self.sign > 0 else f"below {-self.above}"

    @property
    def extreme(self) -> str:
        """Which constant it is compared with bounds those values."""
        return "largest" if self.sign > 0 else "smallest"

    @property
    def wraps_past(self) -> int:
        """The value it wraps past: its type's maximum (minimum, decreasing)."""
        return self.sign * self.maximum

    @property
    def change(self) -> str:
        """Its largest change in one statement, signed."""
        return f"{'+' if self.sign > 0 else '-'}{self.step:,}"


def counters(proc: Procedure) -> dict[str, Counter]:
    """The counters of ``proc`` (see :class:`Counter`), by register name. A counter may
    be read through value-preserving casts (C's promotions: ``(int)(i) < 3``,
    ``i = (unsigned char)((int)(i) + 1)``)."""
    cand = {v.name: v for v in proc.locals if isinstance(v.type, IntType) and not v.type.is_bool
            and not v.in_memory and not v.is_param}
    bad: set[str] = set()
    sets: dict[str, list[int]] = {}
    compared: dict[str, list[int]] = {}
    steps: dict[str, int] = {}
    signs: dict[str, set[int]] = {}  # the directions a register is changed in

    def spoil(*exprs: Expr) -> None:  # these read their registers some other way
        for e in exprs:
            for x in walk(e):
                if isinstance(x, (Reg, AddrOf)):
                    bad.add(x.name)

    def counter_read(e: Expr) -> str | None:
        # a candidate read as it is or widened without changing its value
        if isinstance(e, Cast) and isinstance(e.a, Reg) and e.a.name in cand and isinstance(e.type, IntType):
            frm, to = cand[e.a.name].type, e.type
            if (to.signed and not frm.signed and to.width > frm.width) or \
                    (to.signed == frm.signed and to.width >= frm.width):
                return e.a.name
            return None
        return e.name if isinstance(e, Reg) and e.name in cand else None

    def comparison(e: Expr) -> bool:  # 0 or 1 (through casts)
        while isinstance(e, Cast) and isinstance(e.type, IntType):
            e = e.a
        return isinstance(e, Binary) and e.op in _COMPARISONS

    def change_of(e: Expr, r: str) -> int:
        # the constant r is increased by (wrapped back into r's type; negative: decreased
        # by), else 0; a comparison (0 or 1: ``n += (c == 'a')``, a count without a
        # branch) counts as 1
        if isinstance(e, Cast) and e.type == cand[r].type:
            e = e.a
        if not (isinstance(e, Binary) and e.op in ("add", "sub") and isinstance(e.type, IntType)):
            return 0
        if e.type.width < cand[r].type.width:
            return 0
        sign = 1 if e.op == "add" else -1
        for x, c in ((e.a, e.b), (e.b, e.a)) if e.op == "add" else ((e.a, e.b),):
            if counter_read(x) != r:
                continue
            if isinstance(c, Const) and c.type == e.type and c.value != 0:
                return sign * int(c.value)
            if comparison(c):
                return sign
        return 0

    for b in proc.blocks:
        for s in b.stmts:
            lhs = getattr(s, "lhs", None)
            if isinstance(s, Assign) and isinstance(lhs, Reg) and lhs.name in cand:
                r, rhs = lhs.name, s.rhs
                if isinstance(rhs, Const) and rhs.type == cand[r].type:
                    sets.setdefault(r, []).append(int(rhs.value))
                    continue
                inc = change_of(rhs, r)
                if inc:
                    steps[r] = max(abs(inc), steps.get(r, 0))
                    signs.setdefault(r, set()).add(1 if inc > 0 else -1)
                    continue
                bad.add(r)
            elif isinstance(lhs, Reg):
                bad.add(lhs.name)
            spoil(*s.exprs())
        t = b.term
        if t is None:
            continue
        c = t.cond if isinstance(t, Branch) else None
        if isinstance(c, Binary) and c.op in _COMPARISONS:
            x, k = (c.a, c.b) if isinstance(c.b, Const) else (c.b, c.a)
            r = counter_read(x)
            if r is not None and isinstance(k, Const) and k.type == c.optype and \
                    (x.type if isinstance(x, Cast) else cand[r].type) == c.optype:
                compared.setdefault(r, []).append(int(k.value))
                continue
        spoil(*t.exprs())
    out: dict[str, Counter] = {}
    for r in set(sets) - bad:
        if len(signs.get(r, ())) > 1:
            continue  # increased and decreased: its values spread both ways
        v = cand[r]
        width, signed = v.type.width, v.type.signed
        if signs.get(r) == {-1}:
            out[r] = Counter(r, v.display, max(-k for k in compared.get(r, [0])), max(-k for k in sets[r]),
                             steps[r], 1 << (width - 1) if signed else 0, signed, v.loc, r in compared, -1)
            continue
        out[r] = Counter(r, v.display, max(compared.get(r, [0])), max(sets[r]), steps.get(r, 0),
                         (1 << (width - 1)) - 1 if signed else (1 << width) - 1, signed, v.loc, r in compared)
    return out


# calls whose arguments are not data: the stream reads take an offset (a constant), and
# tl_eof none
_NOT_DATA_CALLS = frozenset({"tl_in", "tl_peek", "tl_eof"})


def data_registers(proc: Procedure) -> frozenset[str]:
    """The local registers whose values may flow into what the procedure writes or
    hands on: a ``tl_out`` or other call's argument, a store (its value or address), the
    value returned, a global or static register; through assignments, transitively. The others only steer branches
    (Sigma*'s control variables, which its predicate abstraction abstracts; the data
    variables are kept exact). Flow-insensitive, so it errs towards data: safe, as
    data is kept."""

    def regs(e: Expr | None) -> set[str]:
        return set() if e is None else {x.name for x in walk(e) if isinstance(x, Reg) and x.scope == "local"}

    data: set[str] = set()
    flows: dict[str, set[str]] = {}  # register -> the registers its assignments read
    for b in proc.blocks:
        for s in b.stmts:
            lhs = getattr(s, "lhs", None)
            if isinstance(s, Assign) and isinstance(lhs, Reg) and lhs.scope == "local":
                flows.setdefault(lhs.name, set()).update(regs(s.rhs))
            elif isinstance(s, Assign) and isinstance(lhs, Reg):  # a global (or static) register: kept
                data |= regs(s.rhs)
            elif isinstance(s, Assign):  # a store
                for e in s.exprs():
                    data |= regs(e)
            elif isinstance(s, Call):
                if s.callee not in _NOT_DATA_CALLS:
                    for e in (s.target, *s.args):
                        data |= regs(e)
                if lhs is not None and not isinstance(lhs, Reg):
                    data |= regs(lhs.addr)
        if isinstance(b.term, Return):
            data |= regs(b.term.value)
    todo = list(data)
    while todo:
        r = todo.pop()
        for x in flows.get(r, ()):
            if x not in data:
                data.add(x)
                todo.append(x)
    return frozenset(data)
