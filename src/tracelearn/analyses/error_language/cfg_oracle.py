"""Solver-free answers from the control-flow graph (pv's pre-check, Sec. 4.1).

A word is CFG-compatible when some path of the interprocedural control-flow graph
(calls matched with returns, data ignored, loops and recursion unbounded) emits
exactly its events and then reaches a target assertion. Every real path is such a
path, so "not compatible" is a sound "no", and it does not depend on the bounds.
"""

from __future__ import annotations

from ...ir.expr import AddrOf, Load, walk
from ...ir.program import Assert, Assign, Branch, Call, Event, Goto, Mem, Nondet, Program, Return
from ...ir.visitor import IRVisitor

INF = float("inf")
_EVENT, _CALL, _FAIL = range(3)  # the kinds of statement the membership check looks at


class CFGOracle:
    def __init__(self, program: Program, targets: set[str], target_kinds: frozenset[str] = frozenset()) -> None:
        self.program = program
        self.targets = targets
        self.target_kinds = target_kinds
        self.indirect = self._address_taken()
        self._fails = _MayFail(self)
        self.cache: dict[tuple[str, ...], bool] = {}
        self._skeletons: dict[str, list] = {}
        # (procedure, events from its call on) -> (where it can return, relative to the
        # call; whether it can fail a target having emitted them all)
        self.kept: dict[tuple[str, tuple[str, ...]], tuple[frozenset[int], bool]] = {}

    def _address_taken(self) -> list[str]:
        names: set[str] = set()
        for p in self.program.procedures.values():
            for b in p.blocks:
                exprs = b.exprs()
                for e in exprs:
                    for x in walk(e):
                        if isinstance(x, AddrOf) and x.scope == "function" and x.name in self.program.procedures:
                            names.add(x.name)
        return sorted(names)

    def may_fail(self, s) -> bool:
        """Can statement or terminator ``s`` fail a target check?"""
        return self._fails.visit(s)

    def body(self, blk) -> list:
        """The statements of a block, and its terminator when a runtime-check target can
        fail in it (``return *p;``, ``if (a[i])``)."""
        if self.target_kinds and blk.term is not None and self.may_fail(blk.term):
            return blk.stmts + [blk.term]
        return blk.stmts

    def callees(self, s: Call) -> list[str]:
        if s.callee is not None:
            return [s.callee] if s.callee in self.program.procedures else []
        return self.indirect

    # ------------------------------------------------------------- membership

    def compatible(self, events: tuple[str, ...]) -> bool:
        """Can a CFG path emit ``events`` and then reach a target check?"""
        if events in self.cache:
            return self.cache[events]
        run = _Summaries(self, events)
        entry = (self.program.entry, 0)
        run.request(entry)
        run.solve()
        run.keep()
        ok = run.fail[entry]
        self.cache[events] = ok
        return ok

    def skeleton(self, name: str) -> list[tuple[list[tuple[int, object, bool]], list[int], bool]]:
        """Procedure ``name`` as the membership check sees it, computed once: per block,
        the statements that emit, call or may fail (the others keep the position), its
        successors and whether it returns. (Asking the visitor of every statement at
        every query cost pv's schedule 8 s of a 76 s learning run.)"""
        sk = self._skeletons.get(name)
        if sk is not None:
            return sk
        sk = []
        for blk in self.program.procedures[name].blocks:
            ops: list[tuple[int, object, bool]] = []
            for s in self.body(blk):
                if isinstance(s, Event):
                    ops.append((_EVENT, s.letter, False))
                elif isinstance(s, Call):
                    library = s.callee is not None and s.callee not in self.program.procedures
                    ops.append((_CALL, tuple(self.callees(s)), library))
                elif self.may_fail(s):
                    ops.append((_FAIL, None, False))
            t = blk.term
            succ = [t.target] if isinstance(t, Goto) else [t.then, t.else_] if isinstance(t, Branch) else []
            sk.append((ops, succ, isinstance(t, Return)))
        self._skeletons[name] = sk
        return sk

    # --------------------------------------------------------- shortest word

    def min_events_to_target(self) -> int | None:
        """Fewest events on a CFG path from the entry to a target (None: unreachable)."""
        names = list(self.program.procedures)
        d_ret = {n: INF for n in names}
        d_fail = {n: INF for n in names}
        for _ in range(len(names) + 2):
            changed = False
            for name in names:
                r, f = self._distances(name, d_ret, d_fail)
                if r < d_ret[name] or f < d_fail[name]:
                    d_ret[name] = min(r, d_ret[name])
                    d_fail[name] = min(f, d_fail[name])
                    changed = True
            if not changed:
                break
        best = d_fail[self.program.entry]
        return None if best == INF else int(best)

    def _distances(self, name: str, d_ret, d_fail) -> tuple[float, float]:
        proc = self.program.procedures[name]
        dist = [INF] * len(proc.blocks)
        dist[0] = 0
        best_ret, best_fail = INF, INF
        # Bellman-Ford over blocks (costs are non-negative; the graph may have loops).
        for _ in range(len(proc.blocks) + 1):
            changed = False
            for bi, blk in enumerate(proc.blocks):
                if dist[bi] == INF:
                    continue
                d = dist[bi]
                for s in self.body(blk):
                    if isinstance(s, Event):
                        d += 1
                    elif isinstance(s, Call):
                        cs = self.callees(s)
                        if cs:
                            best_fail = min(best_fail, d + min(d_fail[c] for c in cs))
                            d += min(d_ret[c] for c in cs) if s.callee in self.program.procedures or s.callee is None else 0
                        if d == INF:
                            break
                    elif self.may_fail(s):
                        best_fail = min(best_fail, d)
                t = blk.term
                if d == INF:
                    continue
                succ = [t.target] if isinstance(t, Goto) else [t.then, t.else_] if isinstance(t, Branch) else []
                if isinstance(t, Return):
                    best_ret = min(best_ret, d)
                for sb in succ:
                    if d < dist[sb]:
                        dist[sb] = d
                        changed = True
            if not changed:
                break
        return best_ret, best_fail


class _Summaries:
    """The least fixpoint of the call summaries of one word: for each call of a procedure
    at event position p, the positions where it can return and whether it can fail a
    target having emitted all the events. A worklist: a summary is computed again only
    when one it read grew (recomputing them all until none changed cost a learning run
    on a program of many small procedures a quarter of its time)."""

    def __init__(self, oracle: CFGOracle, events: tuple[str, ...]) -> None:
        self.o = oracle
        self.w = events
        self.ret: dict[tuple[str, int], set[int]] = {}
        self.fail: dict[tuple[str, int], bool] = {}
        self.final: set[tuple[str, int]] = set()  # known from other words: not recomputed
        self.readers: dict[tuple[str, int], set[tuple[str, int]]] = {}
        self.work: list[tuple[str, int]] = []
        self.queued: set[tuple[str, int]] = set()

    def request(self, key: tuple[str, int]) -> None:
        """Start the summary of ``key``: the one kept from another word with the same
        events from there on, else empty and queued."""
        known = self.o.kept.get((key[0], self.w[key[1]:]))
        if known is None:
            self.ret[key] = set()
            self.fail[key] = False
            self._queue(key)
        else:
            self.ret[key] = {key[1] + q for q in known[0]}
            self.fail[key] = known[1]
            self.final.add(key)

    def keep(self) -> None:
        """Keep the summaries found for later words. A call's summary depends on the events
        from its start on only, and the words of one learning run share suffixes (an
        observation table's columns)."""
        for (name, p), r in self.ret.items():
            if (name, p) not in self.final:
                self.o.kept[(name, self.w[p:])] = (frozenset(q - p for q in r), self.fail[(name, p)])

    def _queue(self, key: tuple[str, int]) -> None:
        if key not in self.queued:
            self.queued.add(key)
            self.work.append(key)

    def solve(self) -> None:
        while self.work:
            key = self.work.pop()
            self.queued.discard(key)
            r, f = self._summary(key)
            if not r <= self.ret[key] or (f and not self.fail[key]):
                self.ret[key] |= r
                self.fail[key] = self.fail[key] or f
                for reader in self.readers.get(key, ()):
                    self._queue(reader)

    def _summary(self, key: tuple[str, int]) -> tuple[set[int], bool]:
        name, start = key
        w, n = self.w, len(self.w)
        ret, fail = self.ret, self.fail
        blocks = self.o.skeleton(name)
        returns: set[int] = set()
        found = False
        seen: set[tuple[int, int]] = set()
        work = [(0, start)]
        while work:
            bi, pos = work.pop()
            if (bi, pos) in seen:
                continue
            seen.add((bi, pos))
            ops, succ, returning = blocks[bi]
            positions = {pos}
            for op, arg, library in ops:
                nxt: set[int] = set()
                for p in positions:
                    if op == _EVENT:
                        if p < n and w[p] == arg:
                            nxt.add(p + 1)
                    elif op == _CALL:
                        for c in arg:
                            callee = (c, p)
                            if callee not in ret:
                                self.request(callee)
                            if callee not in self.final:
                                self.readers.setdefault(callee, set()).add(key)
                            nxt |= ret[callee]
                            found = found or fail[callee]
                        if library:
                            nxt.add(p)  # library call: no events
                    else:  # _FAIL
                        if p == n:
                            found = True
                        nxt.add(p)
                positions = nxt
                if not positions:
                    break
            for p in positions:
                work.extend((b, p) for b in succ)
                if returning:
                    returns.add(p)
        return returns, found


class _MayFail(IRVisitor):
    """Can a statement or terminator fail one of the oracle's target checks? Runtime
    checks other than those the frontend writes as Asserts (pointer validity) can
    fail at any statement that touches memory or calls the library: taken as
    possible, so the oracle's "no" stays sound."""

    def __init__(self, oracle: CFGOracle) -> None:
        self.o = oracle
        self.pointer = "pointer" in oracle.target_kinds

    def loads(self, s) -> bool:
        return self.pointer and any(isinstance(x, Load) for e in s.exprs() for x in walk(e))

    def visit_Assert(self, s: Assert) -> bool:
        return s.prop_id in self.o.targets or s.kind in self.o.target_kinds

    def visit_Event(self, s: Event) -> bool:
        return False

    def visit_Call(self, s: Call) -> bool:
        if s.callee is None or s.callee not in self.o.program.procedures:
            return self.pointer  # the library's own accesses
        return self.pointer and isinstance(s.lhs, Mem) or self.loads(s)

    def visit_Free(self, s) -> bool:
        return self.pointer

    visit_Alloc = visit_Free

    def visit_Assign(self, s: Assign | Nondet) -> bool:
        return self.pointer and isinstance(s.lhs, Mem) or self.loads(s)

    visit_Nondet = visit_Assign

    def visit_Assume(self, s) -> bool:
        return self.loads(s)

    visit_Goto = visit_Branch = visit_Return = visit_Exit = visit_Assume
