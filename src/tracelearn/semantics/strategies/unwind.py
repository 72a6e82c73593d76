"""Merged exploration with unwinding: the bounded model checker's strategy.

One walk over each procedure's blocks in layout order: a jump forward queues the
state at its target, where states merge (if-then-else of values, one named guard
per block); a jump backward is a loop iteration, taken at most ``bound`` times per
entry of the loop, after which an unwinding step records the cut. Calls are
inlined; recursion deeper than the bound is cut the same way. All paths of the
program up to the bound end up in one guarded SSA equation (the target).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import z3

from ...ir.program import Assign, Branch, Call, Exit, Goto, Nondet, Procedure, Return, SourceLoc
from ...ir.types import VoidType
from .. import symexpr as S
from ..bitwuzla_backend import BitwuzlaWorker
from ..equation import Equation, Step
from ..cone import ConeSolver
from ..symbolic import Frame, SymbolicSemantics, is_false
from ..symstate import SVal, State, pts_union

PRUNE_TIMEOUT_S = 2.0
# Pruning queries the solver gave up on, one after another or in all, before pruning stops
# for the rest of the unwinding: past that point each one only costs its cap (a csmith
# program spent 58 s in 29 of them in a row; pv's schedule 24 s in 12, between decided ones)
# and keeps the path anyway.
PRUNE_GIVE_UP = 3
PRUNE_GIVE_UP_TOTAL = 6


@dataclass
class UnwindOptions:
    bound: int = 1
    loop_bounds: dict[str, int] = field(default_factory=dict)  # "line" or "file:line" -> bound
    prune: bool = True  # drop infeasible paths at calls and loop iterations (solver checks)
    # CBMC-compatible unwinding (to compare with tools built on CBMC, like pv):
    partial_loops: bool = False  # past the bound, leave the loop instead of cutting the path
    loop_bound_delta: int = 0  # CBMC's --unwind k takes a back edge at most k-1 times: -1


def loop_limit(proc: Procedure, head: int, bound: int, loop_bounds: dict[str, int],
               delta: int = 0) -> tuple[int, bool]:
    """The bound of the loop whose head is block ``head`` of ``proc``, and whether it
    was given for that loop (``--unwind-loop``) rather than the global bound."""
    loc = proc.blocks[head].loc
    for k in (f"{loc.file}:{loc.line}", str(loc.line), f"{proc.name}:{loc.line}"):
        if k in loop_bounds:
            return max(0, loop_bounds[k] + delta), True
    return max(0, bound + delta), False


def back_edge_counts(counts: dict[tuple[int, int], int], src: int, dst: int) -> dict[tuple[int, int], int]:
    """``counts`` (back edge -> times taken in this activation) after ``src -> dst`` is
    taken once more: the loops nested in it start afresh."""
    out = {e: (0 if dst <= e[1] and e[0] < src else k) for e, k in counts.items()}
    out[(src, dst)] = counts.get((src, dst), 0) + 1
    return out


class MergedUnwinding:
    """Explores every path up to the unwinding bound at once, merging at joins."""

    def __init__(self, sem: SymbolicSemantics, options: UnwindOptions,
                 bitwuzla: BitwuzlaWorker | None = None) -> None:
        """``bitwuzla``: where pruning questions go that z3's incremental solver has not
        answered at once (None: a fresh z3 solver)."""
        self.sem = sem
        self.opt = options
        self.active: list[str] = []  # procedures on the inlined call stack
        self.prune_solver = ConeSolver(bitwuzla, sem.stop)
        self.prune_time = 0.0
        self.prune_unknown_streak = 0  # pruning queries in a row the solver could not decide
        self.prune_unknowns = 0  # and in all
        self.feasible_guards: dict[int, z3.BoolRef] = {}  # guards a path was shown to reach
        # The branch literals each guard is the conjunction of (guard id -> (guard, path)),
        # and the guard of each path: where all the paths out of a branch meet again,
        # the merged guard is the branch's own (CBMC's guard merging), not a disjunction
        # the pruning solver would have to see through.
        true = z3.BoolVal(True)
        # (A path keeps its literals' AST ids beside them: paths are as long as the
        # recursion is deep, and asking z3 for ids again at every branch made the
        # unwinding quadratic in the depth.)
        self.paths: dict[int, _Path] = {true.get_id(): _Path(true, (), ())}
        self.path_guards: dict[tuple[int, ...], z3.BoolRef] = {(): true}
        # Paths the pruning solver refuted: no way out of a branch goes through them, so
        # the ways out that meet again cover the branch without them (a string compared
        # with a constant one: the loop's last iteration is infeasible, and without this
        # every guard after the call was a disjunction of its exits)
        self.dead_paths: set[tuple[int, ...]] = set()

    @property
    def gave_up_pruning(self) -> bool:
        return self.prune_unknown_streak >= PRUNE_GIVE_UP or self.prune_unknowns >= PRUNE_GIVE_UP_TOTAL

    @property
    def prune_calls(self) -> int:
        """Pruning questions the solver answered (the others the last model did)."""
        return self.prune_solver.calls

    @property
    def eq(self) -> Equation:
        return self.sem.target.eq

    # --------------------------------------------------------------- run

    def run(self) -> Equation:
        """The whole program: globals, the initialiser, the entry procedure."""
        sem = self.sem
        program = sem.program
        st = State(z3.BoolVal(True))
        sem.init_globals(st)
        res = self.call_procedure(st, program.procedures[program.init], [], SourceLoc("", 0, 0))
        if res is None:
            return self.eq
        st2 = res[0]
        entry = program.procedures[program.entry]
        args = sem.entry_args(st2, entry)
        end = self.call_procedure(st2, entry, args, entry.loc, entry=True)
        if end is not None and not is_false(end[0].guard):
            sem.end(end[0], entry)
        return self.eq

    def feasible(self, guard: z3.BoolRef) -> bool:
        """Can a path reach a point under ``guard``? Asked before inlining a recursive
        call and before unrolling a loop again, where infeasible paths would multiply."""
        if not self.opt.prune or z3.is_true(guard) or self.gave_up_pruning:
            return True
        if z3.is_false(guard):
            return False
        seen = self.feasible_guards.get(guard.get_id())
        if seen is not None and seen.eq(guard):  # e.g. a loop's guard, iteration after iteration
            return True
        t0 = time.perf_counter()
        s = self.prune_solver
        s.index(self.eq.constraints)
        # A pruning query is only an optimisation (unknown: keep the path): 2 s at most.
        cap = t0 + PRUNE_TIMEOUT_S
        deadline = self.sem.deadline
        r = s.check(guard, cap if deadline is None else min(cap, deadline))
        self.prune_time += time.perf_counter() - t0
        if r == z3.sat:
            self.feasible_guards[guard.get_id()] = guard
        elif r == z3.unsat:
            known = self.paths.get(guard.get_id())
            if known is not None and known.guard.eq(guard):
                self.dead_paths.add(known.ids)
        self.prune_unknown_streak = self.prune_unknown_streak + 1 if r == z3.unknown else 0
        self.prune_unknowns += r == z3.unknown
        return r != z3.unsat

    # --------------------------------------------------------- procedures

    def call_procedure(self, st: State, proc: Procedure, args: list[SVal], loc: SourceLoc, entry: bool = False):
        """Inline ``proc``; returns (state after the call, return value) or None."""
        sem = self.sem
        depth = self.active.count(proc.name)
        if depth and not self.feasible(st.guard):
            return None
        if depth > self.opt.bound:
            self.unwind(st, f"recursion of {proc.name}", loc)
            return None
        self.active.append(proc.name)
        frame, st = sem.enter(st, proc, args, loc, entry)
        try:
            results = self.walk(frame, st)
        finally:
            sem.leave(frame)
            self.active.pop()
        if not results:
            return None
        merged = self.merge([s for s, _ in results], f"{proc.name}.return")
        ret = None
        if not isinstance(proc.type.ret, VoidType):
            vals = [(s.guard, v) for s, v in results if v is not None]
            if vals:
                ret = self.merge_values(vals, "ret")
        sem.returned(frame, merged, loc)
        return merged, ret

    def walk(self, frame: Frame, st: State) -> list[tuple[State, SVal | None]]:
        sem = self.sem
        blocks = frame.proc.blocks
        pending: dict[int, list[State]] = defaultdict(list)
        pending[0].append(st)
        results: list[tuple[State, SVal | None]] = []
        counts: dict[tuple[int, int], int] = {}
        pos = 0
        n = len(blocks)
        while pos < n:
            states = pending.pop(pos, None)
            if not states:
                pos += 1
                continue
            blk = blocks[pos]
            cur = self.merge(states, f"{frame.proc.name}.B{pos}", weight=_weight(blk))
            if is_false(cur.guard):
                pos += 1
                continue
            after = self.exec_block(frame, blk.stmts, cur)
            if after is None or is_false(after.guard):
                pos += 1
                continue
            t = blk.term
            sem.cur_loc = t.loc
            nxt = pos + 1
            if isinstance(t, Goto):
                nxt = self.jump(frame, pos, t.target, after, pending, counts, nxt)
            elif isinstance(t, Branch):
                c = sem.decision(frame, after, t)
                succ = []
                if not z3.is_false(c):
                    succ.append((t.then, after.copy(self.extend(after.guard, c) if not z3.is_true(c) else after.guard)))
                if not z3.is_true(c):
                    succ.append((t.else_, after.copy(self.extend(after.guard, _negate(c)) if not z3.is_false(c) else after.guard)))
                succ.sort(key=lambda p: p[0] <= pos)  # forward targets first
                for target, s2 in succ:
                    nxt = self.jump(frame, pos, target, s2, pending, counts, nxt)
            elif isinstance(t, Return):
                results.append((after, sem.return_value(after, t)))
            elif isinstance(t, Exit):
                sem.exit(frame, after, t)
            pos = nxt
        return results

    def loop_bound(self, frame: Frame, target: int) -> tuple[int, bool]:
        """The unwinding bound of the loop whose head is block ``target``, and whether
        it was given for that loop (``--unwind-loop``) rather than the global bound."""
        return loop_limit(frame.proc, target, self.opt.bound, self.opt.loop_bounds, self.opt.loop_bound_delta)

    def jump(self, frame: Frame, src: int, dst: int, st: State, pending, counts, nxt: int) -> int:
        if dst > src:
            pending[dst].append(st)
            return nxt
        key = (src, dst)
        k = counts.get(key, 0)
        if not self.feasible(st.guard):
            return nxt
        limit, explicit = self.loop_bound(frame, dst)
        if k >= limit:
            self.unwind(st, f"loop at {frame.proc.blocks[dst].loc}", frame.proc.blocks[src].term.loc,
                        "explicit" if explicit else "global")
            if self.opt.partial_loops and src + 1 < len(frame.proc.blocks):
                # CBMC's --partial-loops: leave the loop as if its condition were false
                # (an over-approximation: such paths need not be real runs).
                pending[src + 1].append(st)
            return nxt
        counts[key] = k + 1
        for (s, d) in list(counts):
            if dst <= d and s < src:
                counts[(s, d)] = 0
        pending[dst].append(st)
        return dst

    def unwind(self, st: State, what: str, loc: SourceLoc, origin: str = "global") -> None:
        """A path cut by the unwinding; ``origin`` says which bound cut it: the global
        one (``global``) or a loop's own (``explicit``)."""
        if is_false(st.guard):
            return
        self.eq.unwinding_hit = True
        self.sem.step(Step("unwind", st.guard, loc, self.sem.fn, message=f"unwinding bound reached: {what}",
                           origin=origin))

    # ---------------------------------------------------------- statements

    def exec_block(self, frame: Frame, stmts: list, st: State) -> State | None:
        sem = self.sem
        for s in stmts:
            if isinstance(s, Call):
                res = self.exec_call(frame, s, st)
                if res is None:
                    return None
                st = res
            else:
                st = sem.exec_stmt(frame, s, st)
            if is_false(st.guard):
                return None
        return st

    def exec_call(self, frame: Frame, s: Call, st: State) -> State | None:
        sem = self.sem
        args = sem.call_args(st, s)
        outs: list[State] = []
        for name, cond in sem.callees(st, s):
            sub = st if z3.is_true(cond) else st.copy(S.conj(st.guard, cond))
            if is_false(sub.guard):
                continue
            res = self.call_named(frame, s, sub, name, args)
            if res is not None and not is_false(res.guard):
                outs.append(res)
        if not outs:
            return None
        return outs[0] if len(outs) == 1 and s.callee is not None else self.merge(outs, "indirect")

    def call_named(self, frame: Frame, s: Call, st: State, name: str, args: list[SVal]) -> State | None:
        sem = self.sem
        proc = sem.program.procedures.get(name)
        if proc is None:
            st, ret = sem.library_call(st, name, args, s)
        else:
            res = self.call_procedure(st, proc, sem.procedure_args(st, proc, args, s), s.loc)
            if res is None:
                return None
            st, ret = res
        if st is None or is_false(st.guard):
            return None
        sem.call_result(frame, s, st, name, ret)
        return st

    # ------------------------------------------------------------- merging

    def extend(self, guard: z3.BoolRef, literal: z3.BoolRef) -> z3.BoolRef:
        """``guard`` and ``literal`` (a branch taken), remembering the path."""
        g = S.conj(guard, literal)
        known = self.paths.get(guard.get_id())
        base = known if known is not None and known.guard.eq(guard) else _Path(guard, (guard,), (guard.get_id(),))  # opaque
        self.paths[g.get_id()] = _Path(g, base.literals + (literal,), base.ids + (literal.get_id(),))
        self.path_guards.setdefault(base.ids, guard)
        return g

    def joined(self, guards: list[z3.BoolRef]) -> tuple[z3.BoolRef, tuple] | None:
        """The guard where paths with these guards branched apart, if together they
        cover every way out of it (then their disjunction is that guard)."""
        paths = []
        for g in guards:
            known = self.paths.get(g.get_id())
            if known is None or not known.guard.eq(g):
                return None
            paths.append(known)
        n = min(len(p.ids) for p in paths)
        first = paths[0].ids
        k = 0
        while k < n and all(p.ids[k] == first[k] for p in paths[1:]):
            k += 1
        if not _covers([(p.literals[k:], p.ids[k:]) for p in paths], first[:k], self.dead_paths):
            return None
        g = self.path_guards.get(first[:k])
        return (g, paths[0].literals[:k]) if g is not None else None

    def merge(self, states: list[State], label: str, weight: int = 0) -> State:
        if len(states) == 1:
            st = states[0]
            g = self.define_guard(st.guard, weight)
            return st if g is st.guard else st.copy(g)
        guards = [s.guard for s in states]
        meet = self.joined(guards)
        out = State(self.define_guard(meet[0] if meet is not None else z3.Or(*guards), weight))
        keys = set().union(*(s.regs.keys() for s in states))
        for k in keys:
            vals = [(s.guard, s.regs[k]) for s in states if k in s.regs]
            first = vals[0][1]
            # most registers (all of the callers' frames) are the same object on every
            # path: no z3 call for them, or merging is quadratic in the call depth
            same = len(vals) == len(states) and all(v is first for _, v in vals[1:])
            out.regs[k] = first if same else self.merge_values(vals, k)
        oids = set().union(*(s.mem.keys() for s in states))
        for oid in oids:
            vals = [(s.guard, s.mem[oid]) for s in states if oid in s.mem]
            out.mem[oid] = self.merge_terms(vals, f"mem{oid}")
            pts = frozenset()
            for s in states:
                if oid in s.spts:
                    pts = pts_union(pts, s.spts[oid])
            out.spts[oid] = pts
        aoids = set().union(*(s.alive.keys() for s in states))
        for oid in aoids:
            vals = [(s.guard, s.alive.get(oid, z3.BoolVal(False))) for s in states]
            out.alive[oid] = self.merge_terms(vals, None)
        return out

    def define_guard(self, g: z3.BoolRef, weight: int) -> z3.BoolRef:
        """One named guard per block instance, weighted by its statements."""
        if z3.is_true(g):
            return g
        if z3.is_const(g):
            if weight:
                self.eq.guards.append((g, weight))
            return g
        sym = z3.Bool(f"guard#{next(self.sem.names)}")
        self.sem.constrain(sym == g)
        self.eq.guards.append((sym, weight))
        known = self.paths.get(g.get_id())
        if known is not None and known.guard.eq(g):  # the same path, under a name
            self.paths[sym.get_id()] = _Path(sym, known.literals, known.ids)
            self.path_guards[known.ids] = sym
        return sym

    def merge_terms(self, vals: list[tuple[z3.BoolRef, z3.ExprRef]], name: str | None) -> z3.ExprRef:
        first = vals[0][1]
        if all(v.eq(first) for _, v in vals[1:]):
            return first
        term = vals[-1][1]
        for g, v in reversed(vals[:-1]):
            term = z3.If(g, v, term)
        if name is None:
            return term
        return self.sem.define(f"{name}#phi{next(self.sem.names)}", term)

    def merge_values(self, vals: list[tuple[z3.BoolRef, SVal]], name: str) -> SVal:
        pts = frozenset()
        for _, v in vals:
            pts = pts_union(pts, v.pts)
        return SVal(self.merge_terms([(g, v.term) for g, v in vals], name), pts)


@dataclass(frozen=True)
class _Path:
    """A guard as the branch literals it is the conjunction of."""

    guard: z3.BoolRef
    literals: tuple[z3.BoolRef, ...]
    ids: tuple[int, ...]  # the literals' AST ids (the literals keep them alive)


def _covers(rests: list[tuple[tuple[z3.BoolRef, ...], tuple[int, ...]]], prefix: tuple[int, ...],
            dead: set[tuple[int, ...]]) -> bool:
    """Do these paths after a common prefix (their literals, and the literals' AST ids)
    cover every case? True when one is empty, or they split on a literal and its
    negation and each side covers again, a side none takes being covered when its path
    (``prefix`` and the literal) is ``dead``: a tree of branches whose every live leaf
    is there."""
    if any(not lits for lits, _ in rests):
        return True
    first, fid = rests[0][0][0], rests[0][1][0]
    pos = [(lits[1:], ids[1:]) for lits, ids in rests if ids[0] == fid]
    neg = [r for r in rests if r[1][0] != fid]
    if not all(_negates(lits[0], first) for lits, _ in neg):
        return False
    if not _covers(pos, prefix + (fid,), dead):
        return False
    if not neg:
        return prefix + (_negate(first).get_id(),) in dead
    return _covers([(lits[1:], ids[1:]) for lits, ids in neg], prefix + (neg[0][1][0],), dead)


def _negate(c: z3.BoolRef) -> z3.BoolRef:
    return c.arg(0) if z3.is_not(c) else z3.Not(c)


def _negates(a: z3.BoolRef, b: z3.BoolRef) -> bool:
    return (z3.is_not(a) and a.arg(0).eq(b)) or (z3.is_not(b) and b.arg(0).eq(a))


def _weight(blk) -> int:
    return sum(1 for s in blk.stmts if (isinstance(s, Assign) and not s.hidden) or isinstance(s, Nondet))
