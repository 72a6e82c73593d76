"""The equivalence oracle of Sigma* (Alg. 3), on the shared engine: the filter's big
steps explored symbolically from each boundary, beside the conjecture.

Sigma* compares the conjecture with a predicate abstraction of the program. Here the
abstraction is the filter's own state read back over the lookback window
(``StepExplorer.boundary``) with the predicates the path to it put on the window's
elements: the conditions of the last steps, moved back one place per step, dropped
when they reach past what the filter's state holds and the conjecture reads from there
on. A filter that holds an element (an E2 that may start E2 80 A8) keeps knowing what
it holds; a state that forgets its window is one boundary, not one per path into it.

Nodes are (filter state, conjecture state, window predicates). The paths of one length
into the same filter and conjecture state are joined into one node whose window is the
union of theirs (exact: a boundary's steps depend on the window's values only), and a
path whose window a node already explored there covers adds nothing. The search is
breadth first, so the first separating input found is among the shortest. When every
node has been explored and every step agreed with the conjecture, the conjecture is
*proved* equivalent (the explored windows are an inductive invariant of the pair). A
boundary that holds an element older than the window, a search cut by its bounds, or a
separating path that no input takes (the abstraction forgot a constraint it needed)
leaves the question open: ``unknown``.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import z3

from ...automata.transducer import FinalMove, Move, Transducer, read_later
from ...automata.transducer_paths import at_position, path_input, solve_input, solver, undecided
from ...bvterm import TermFacts, unwidened
from .windows import output_difference
from ...querytime import remaining_ms
from ...semantics.strategies.bigstep import Boundary, LookbackExceeded, StepExplorer, SymStep
from ...z3dag import all_of, any_of, conjuncts, holds


@dataclass
class EquivalenceResult:
    status: str  # "equivalent" | "separated" | "unknown"
    witness: list[int] | None = None  # a separating input (status "separated"), among the shortest
    reason: str = ""
    boundaries: int = 0
    steps: int = 0
    solver_calls: int = 0
    depth: int = 0  # the deepest boundary explored
    time_s: float = 0.0
    more: list[list[int]] = field(default_factory=list)  # other separating inputs met (``max_witnesses``)


@dataclass
class _Node:
    """A boundary of the filter beside a conjecture state, reached by one or more paths
    of one length (joined: the window's predicates of each, explored as their union)."""

    boundary: Boundary
    q: int
    depth: int
    ways: list[tuple["_Node", z3.BoolRef]]  # ways in: the node before and the step's condition
    windows: list[tuple[z3.BoolRef, ...]]  # per way in: what it says of w1..wk (conjuncts)
    reach: z3.BoolRef | None = None  # the inputs that take some way here (over in!p), once asked

    def window(self) -> z3.BoolRef | None:
        """What the ways in say of the window (None: nothing)."""
        if any(not w for w in self.windows):
            return None
        parts = [_conj(w) for w in self.windows]
        return parts[0] if len(parts) == 1 else z3.Or(*parts)


@dataclass
class _Moves:
    """The conjecture's moves out of one state that can be enabled at a node (those
    that read before the stream's start cannot), each with its enabled condition, and
    none of them enabled."""
    moves: list[tuple[Move, z3.BoolRef]]
    finals: list[tuple[FinalMove, z3.BoolRef]]
    none: z3.BoolRef
    by_guard: dict[int, Move] | None = None  # enabled move by its guard's AST id (the moves keep the terms alive)

    def same(self, st: SymStep) -> Move | None:
        """The move whose guard is the step's condition itself and whose outputs are the
        step's (the same z3 terms: the table's letters are the explored steps' paths),
        if any. The conjecture is deterministic (checked before the oracle is asked), so
        no other move is enabled on the step's path and the step agrees with it: no
        question to ask. A final move's guard is not compared: ends are asked."""
        if st.kind != "step":
            return None
        if self.by_guard is None:
            self.by_guard = {en.get_id(): m for m, en in self.moves}
        m = self.by_guard.get(st.cond.get_id())
        if m is None or len(m.outputs) != len(st.outputs):
            return None
        return m if all(a.get_id() == b.get_id() for a, b in zip(m.outputs, st.outputs)) else None


@dataclass
class EquivalenceChecker:
    explorer: StepExplorer
    max_boundaries: int = 2000
    max_depth: int | None = None  # None: unbounded
    deadline: float | None = None
    # separating inputs to gather before answering (at most one per disagreeing step met,
    # breadth first): a table refined with several needs fewer equivalence queries
    max_witnesses: int = 1
    facts: TermFacts = field(default_factory=TermFacts, repr=False)  # the window places of terms
    _shifted: dict = field(default_factory=dict, repr=False)  # (term id, k) -> (term, moved back or None)

    def check(self, conj: Transducer) -> EquivalenceResult:
        t0 = time.perf_counter()
        res = self._check(conj)
        res.time_s = time.perf_counter() - t0
        return res

    def _check(self, conj: Transducer) -> EquivalenceResult:
        el = self.explorer.element
        res = EquivalenceResult("unknown")
        init, b0 = self.explorer.initial()
        if init != conj.initial_output:
            return EquivalenceResult("separated", [], "the outputs before the first read differ")
        if b0 is None:
            return EquivalenceResult("unknown", reason="the filter returns before it reads")
        need = [max(js, default=0) for js in read_later(conj)]  # the furthest place a state may read
        queue = deque([_Node(b0, conj.initial, 0, [], [()], z3.BoolVal(True))])
        seen = {(b0.key, conj.initial, ())}
        # Paths of one length into the same filter state and conjecture state are one
        # node (the union of their windows: exact, as a boundary's steps depend on the
        # window's values only), and a way in whose window a node already explored there
        # covers adds nothing: an escaper's every path into its free state, or an
        # encoder's every output branch, is then one boundary, not one each.
        waiting: dict[tuple, _Node] = {}  # (state key, conjecture state, depth) -> queued node
        covered: dict[tuple, z3.BoolRef | None] = {}  # (state key, conjecture state) -> explored union
        found_inputs: list[list[int]] = []

        def separated() -> EquivalenceResult:
            return EquivalenceResult("separated", found_inputs[0], "", res.boundaries, res.steps,
                                     res.solver_calls, res.depth, more=found_inputs[1:])

        while queue:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                if found_inputs:
                    return separated()
                res.reason = "time limit"
                return res
            node = queue.popleft()
            here = (node.boundary.key, node.q)
            waiting.pop((*here, node.depth), None)
            res.boundaries += 1
            res.depth = max(res.depth, node.depth)
            wf = node.window()
            if here in covered:
                before = covered[here]
                covered[here] = None if wf is None or before is None else z3.Or(before, wf)
            else:
                covered[here] = wf
            try:
                steps = self.explorer.steps(node.boundary)  # LookbackExceeded: the caller widens the window
            except LookbackExceeded:
                if found_inputs:
                    return separated()
                raise
            # one solver per node, the window asserted once; each step pushed on it
            base = solver()
            if wf is not None:
                base.add(wf)
            mv = self._moves(conj, node)
            for st in steps:
                res.steps += 1
                ss = _StepSolver(st.cond, self.deadline, res, base)
                same = mv.same(st)
                plain = st.cond  # (split and moved back once per term: the window's own parts apart)
                if wf is not None:
                    st = SymStep(st.kind, all_of([wf, st.cond]), st.outputs, st.next)
                    if not ss.sat():
                        continue  # a path of the step the window's predicates rule out
                found = None if same is not None else self._compare(mv, st, ss)
                if found is not None:
                    witness = self._witness(node, found, el.bits, st.kind == "step")
                    if witness is None:
                        if found_inputs:
                            continue  # (a later one: the inputs found stand)
                        res.reason = ("a separating path no input takes (the boundaries forget the window "
                                      "constraints it needs)")
                        return res
                    found_inputs.append(witness)
                    if len(found_inputs) >= self.max_witnesses:
                        return separated()
                    continue  # the step disagrees: nothing after it is compared
                if st.kind != "step":
                    continue
                enabled = ([(m, en) for m, en in mv.moves if m is same] if same is not None else
                           [(m, en) for (m, en), ok in zip(mv.moves, ss.which([en for _, en in mv.moves])) if ok])
                for m, en in enabled:
                    cond = all_of([st.cond, en])
                    if st.next is None:
                        # the filter returned: the conjecture must stay silent on any rest
                        if not self._speaks_after(conj, m.dst):
                            continue
                        witness = self._speaking(conj, node, cond, m.dst, el.bits)
                        if witness is not None:
                            found_inputs.append(witness)
                            if len(found_inputs) >= self.max_witnesses:
                                return separated()
                            continue
                        if found_inputs:
                            return separated()
                        res.reason = "the filter returns; the conjecture may still write after it"
                        return res
                    # only what the future can read: the places the filter's state holds,
                    # and those the conjecture reads from here on (a boundary of a state
                    # that forgets the window is then one boundary, not one per path in)
                    texts, window = self._shift((plain, en) if wf is None else (wf, plain, en),
                                                min(self.explorer.k, max(st.next.reads | {need[m.dst]})))
                    there = (st.next.key, m.dst)
                    key = (*there, texts)
                    if key in seen:
                        continue
                    if len(seen) >= self.max_boundaries:
                        if found_inputs:
                            return separated()
                        res.reason = f"more than {self.max_boundaries} boundaries"
                        return res
                    if self.max_depth is not None and node.depth + 1 > self.max_depth:
                        res.reason = f"equal on every input of up to {self.max_depth} elements (depth bound)"
                        continue
                    seen.add(key)
                    if there in covered and self._covers(covered[there], window, res):
                        continue
                    later = waiting.get((*there, node.depth + 1))
                    if later is not None:
                        later.windows.append(window)
                        later.ways.append((node, cond))
                        continue
                    new = _Node(st.next, m.dst, node.depth + 1, [(node, cond)], [window])
                    waiting[(*there, node.depth + 1)] = new
                    queue.append(new)
        if found_inputs:
            return separated()
        if res.reason:
            return res
        res.status = "equivalent"
        return res

    # ------------------------------------------------------------------ one step

    def _moves(self, conj: Transducer, node: _Node) -> "_Moves":
        """The conjecture's moves out of the node's state with their enabled conditions,
        once per node (its every step is compared with the same ones)."""
        d = node.boundary.defined
        moves = [(m, self._enabled(m.guard, m.outputs, d)) for m in conj.out_of(node.q)]
        finals = [(f, self._enabled(f.guard, f.outputs, d, final=True)) for f in conj.finals_of(node.q)]
        live = [(m, en) for m, en in moves if not z3.is_false(en)]
        finals = [(f, en) for f, en in finals if not z3.is_false(en)]
        return _Moves(live, finals, all_of([z3.Not(e) for _, e in live]))

    def _compare(self, mv: "_Moves", st: SymStep, ss: "_StepSolver") -> z3.BoolRef | None:
        """A condition under which the step and the conjecture disagree (None: they agree).
        One question first for all the ways to disagree; which one only when there is one."""
        bads = []
        if st.kind == "end":
            earlier: list[z3.BoolRef] = []
            for f, en in mv.finals:
                diff = output_difference(f.outputs, st.outputs)
                if diff is not None:
                    bads.append(all_of([en, *[z3.Not(e) for e in earlier], diff]))
                earlier.append(en)
            if st.outputs:
                bads.append(all_of([z3.Not(e) for e in earlier]))
        else:
            for m, en in mv.moves:
                diff = output_difference(m.outputs, st.outputs)
                if diff is not None:
                    bads.append(all_of([en, diff]))
            bads.append(mv.none)
        # no simplify of each: a false part is dropped above, and the solver sees the rest
        if not bads or not ss.sat(any_of(bads)):
            return None
        for b in bads:
            if ss.sat(b):
                return all_of([st.cond, b])
        return None  # pragma: no cover - the disjunction was satisfiable

    def _enabled(self, guard: z3.BoolRef, outputs: tuple, defined: int, final: bool = False) -> z3.BoolRef:
        """The guard, false when it (or an output) reads before the stream's start: in a
        step ``w0`` and ``defined`` earlier elements exist; at the end, ``w1..w<defined>``."""
        for t in (guard, *outputs):
            for j in self._window_places(t):
                if (final and j == 0) or j > defined:
                    return z3.BoolVal(False)
        return guard

    def _window_places(self, t: z3.ExprRef) -> frozenset[int]:
        return self.facts.places(t)

    def _speaks_after(self, conj: Transducer, q: int) -> bool:
        todo, seen = [q], {q}
        while todo:
            s = todo.pop()
            if any(f.outputs for f in conj.finals_of(s)):
                return True
            for m in conj.out_of(s):
                if m.outputs:
                    return True
                if m.dst not in seen:
                    seen.add(m.dst)
                    todo.append(m.dst)
        return False

    def _shift(self, conds: tuple[z3.BoolRef, ...], k: int) -> tuple[tuple[str, ...], tuple[z3.BoolRef, ...]]:
        """What the conjunction of ``conds`` (over a step's ``w0..wk``) says of the window
        at the next boundary: each conjunct moved back one place (``wj`` becomes
        ``w(j+1)``), those that would reach past ``wk`` dropped (a weaker fact, still true
        on the path) once an equality that ties ``wk`` to the other places has rewritten
        them (:meth:`_eliminated`); a disjunction (a joined node's window) moved back disjunct by
        disjunct."""
        out: dict[str, z3.BoolRef] = {}
        for c in self._eliminated([c for cond in conds for c in self.facts.conjuncts(cond)], k):
            moved = self._moved_back(c, k)
            if moved is not None:
                out[moved[0]] = moved[1]
        order = sorted(out)
        return tuple(order), tuple(out[x] for x in order)

    def _eliminated(self, cs: list[z3.BoolRef], k: int) -> list[z3.BoolRef]:
        """``cs`` with ``wk`` (which leaves the window at the shift) replaced, in the
        conjuncts that read it, by what an equality among them says it is in the other
        places: ``x[-1] == x + 1`` and ``x[-1] != x[-2]`` leave ``x + 1 != x[-2]``, which
        the shift keeps (dropped, the next boundary forgot it, and a path no input takes
        separated a correct conjecture). Unchanged without such an equality."""
        if k < 1 or len(cs) < 2:
            return cs
        wk = self.explorer.element.window(k)
        defs: list[tuple[z3.ExprRef, z3.ExprRef, z3.BoolRef]] = []  # wk (widened), its value, the equality
        for c in cs:
            if z3.is_eq(c) and k in self._window_places(c):
                for x, y in ((c.arg(0), c.arg(1)), (c.arg(1), c.arg(0))):
                    if unwidened(x).eq(wk) and k not in self._window_places(y) and self._window_places(y) \
                            and not any(x.eq(a) for a, _, _ in defs):
                        defs.append((x, y, c))
                        break
        if not defs:
            return cs
        used = [d[2] for d in defs]
        pairs = [(x, y) for x, y, _ in defs]
        # (another equality for the same wk becomes one between the places it ties)
        return [z3.substitute(c, *pairs) if k in self._window_places(c) and not any(c.eq(u) for u in used) else c
                for c in cs]

    def _moved_back(self, c: z3.BoolRef, k: int) -> tuple[str, z3.BoolRef] | None:
        """One conjunct moved back (None: nothing of it is left). A step's conjuncts
        recur with each of the conjecture's moves: moved once (cached per term)."""
        key = (c.get_id(), k)
        hit = self._shifted.get(key)
        if hit is not None:  # the entry keeps its term: the id is that term's
            return hit[1]
        moved: tuple[str, z3.BoolRef] | None = None
        if z3.is_or(c):
            parts = []
            for d in c.children():
                kept = [x[1] for x in (self._moved_back(e, k) for e in conjuncts(d)) if x is not None]
                if not kept:
                    parts = []  # a disjunct with nothing left: the disjunction says nothing
                    break
                parts.append(_conj(kept))
            if parts:
                d = z3.Or(*parts)
                moved = (d.sexpr(), d)
        else:
            js = self._window_places(c)
            if not (js and max(js) + 1 > k):
                el = self.explorer.element
                c2 = z3.substitute(c, *[(el.window(j), el.window(j + 1)) for j in js]) if js else c
                moved = (c2.sexpr(), c2)
        self._shifted[key] = (c, moved)  # the term is kept: its id is not reused
        return moved

    # ------------------------------------------------------------------ witnesses

    def _witness(self, node: _Node, bad: z3.BoolRef, bits: int, step: bool,
                 after: tuple[list[z3.BoolRef], int] = ([], 0)) -> list[int] | None:
        """An input taking some way to ``node`` and then the disagreeing step: along the
        first ways in first (the path the search met first, one solver call, as before
        nodes were joined), else along any (the union's formula). ``after``: conditions of
        the positions after the step, and the elements they add."""
        length = (node.depth + 1 if step else node.depth) + after[1]
        path, n = [], node
        while n.ways:
            n, c = n.ways[0]
            path.append(c)
        found = path_input(path[::-1] + [bad] + after[0], bits, length)
        if found is not None or all(len(n.ways) < 2 for n in self._ancestors(node)):
            return found
        here = [at_position(c, node.depth + i, bits) for i, c in enumerate([bad] + after[0])]
        if any(h is None for h in here):
            return None
        return solve_input([self._reach(node, bits), *here], length, bits)  # type: ignore[list-item]

    def _speaking(self, conj: Transducer, node: _Node, cond: z3.BoolRef, q: int, bits: int,
                  tries: int = 64) -> list[int] | None:
        """An input on which the filter returns at the step ``cond`` from ``node`` (the
        conjecture then in ``q``) and the conjecture writes afterwards: the conjecture's
        paths from ``q`` to a move or an end that writes, shortest first, each asked of the
        solver (a path whose guards no input meets is skipped), at most ``tries``; None
        if none was found."""
        todo: deque[tuple[int, list[z3.BoolRef]]] = deque([(q, [])])
        while todo and tries > 0:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                return None
            s, path = todo.popleft()
            ends = [(f.guard, len(path)) for f in conj.finals_of(s) if f.outputs]
            ends += [(m.guard, len(path) + 1) for m in conj.out_of(s) if m.outputs]
            for g, n in ends:
                tries -= 1
                found = self._witness(node, cond, bits, True, (path + [g], n))
                if found is not None:
                    return found
            if len(path) < 8:
                todo.extend((m.dst, path + [m.guard]) for m in conj.out_of(s) if not m.outputs)
        return None

    def _reach(self, node: _Node, bits: int) -> z3.BoolRef:
        """The inputs that take some way to ``node``: over its ways in, the node before's
        and the step's condition at its position. One formula sharing the nodes before
        (a path each would be exponential in the joins); ancestors first, no recursion."""
        order = [n for n in self._ancestors(node) if n.reach is None]
        for n in sorted(order, key=lambda n: n.depth):  # every way in comes from one step less deep
            parts = []
            for p, c in n.ways:
                here = at_position(c, p.depth, bits)
                if here is not None:
                    parts.append(z3.And(p.reach, here))
            n.reach = z3.Or(*parts) if len(parts) > 1 else parts[0] if parts else z3.BoolVal(False)
        assert node.reach is not None
        return node.reach

    @staticmethod
    def _ancestors(node: _Node) -> list[_Node]:
        """``node`` and every node on a way to it."""
        todo, out, met = [node], [], set()
        while todo:
            n = todo.pop()
            if id(n) in met:
                continue
            met.add(id(n))
            out.append(n)
            todo.extend(p for p, _ in n.ways)
        return out

    def _covers(self, explored: z3.BoolRef | None, window: tuple[z3.BoolRef, ...],
                res: EquivalenceResult) -> bool:
        """Does the window a node already explored (None: any) include this one?"""
        if explored is None:
            return True
        return not _StepSolver(z3.And(*window, z3.Not(explored)), self.deadline, res).sat()


class _StepSolver:
    """One solver per step, its condition asserted once; the questions about the
    conjecture's moves are pushed and popped on it. Counted in ``res``; the solver's
    unknown (the deadline) raises TimeoutError: unknown, never a guess."""

    def __init__(self, cond: z3.BoolRef, deadline: float | None, res: EquivalenceResult,
                 base: z3.Solver | None = None) -> None:
        # on ``base`` (a node's solver, its window asserted): the step's scope replaces
        # the previous step's
        if base is not None:
            if base.num_scopes():
                base.pop()
            base.push()
            self.s = base
        else:
            self.s = solver()
        self.s.add(cond)
        self.deadline = deadline
        self.res = res

    def sat(self, extra: z3.BoolRef | None = None) -> bool:
        return self._check(extra, False) is not None

    def which(self, conds: list[z3.BoolRef]) -> list[bool]:
        """Which of ``conds`` hold on some path of the step. Most do not (a step is
        enabled with few of the conjecture's moves): one question for all those left,
        and each model found settles every condition true in it, so a step costs its
        enabled moves plus one, not a question per move."""
        out = [False] * len(conds)
        left = list(range(len(conds)))
        while left:
            model = self._check(any_of([conds[i] for i in left]), True)
            if model is None:
                break
            hit = [i for i in left if holds(model, [conds[i]])]
            if not hit:  # pragma: no cover - a model of the disjunction makes one true
                hit = [i for i in left if self.sat(conds[i])]
                left = []
            for i in hit:
                out[i] = True
            left = [i for i in left if not out[i]]
        return out

    def _check(self, extra: z3.BoolRef | None, want_model: bool) -> z3.ModelRef | bool | None:
        """None when unsatisfiable; else the model (``want_model``) or True."""
        self.res.solver_calls += 1
        if self.deadline is not None:
            self.s.set("timeout", remaining_ms(self.deadline))
        if extra is not None:
            self.s.push()
            self.s.add(extra)
        try:
            r = self.s.check()
            found = (self.s.model() if want_model else True) if r == z3.sat else None
        finally:
            if extra is not None:
                self.s.pop()
        if r == z3.unknown:
            raise undecided(self.s, self.deadline)
        return found


def _conj(parts) -> z3.BoolRef:
    parts = list(parts)
    return parts[0] if len(parts) == 1 else z3.And(*parts)
