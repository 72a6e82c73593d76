"""The pre-image of a language under a symbolic transducer with lookback: the inputs on
which the transducer writes a sequence the automaton accepts, as a symbolic automaton
over the inputs (Sigma*, Sec. 4), and the search for a shortest such input.

A state of the pre-image is (transducer state, automaton state, window places
defined). A transducer move writing ``o1 .. om`` from there becomes one move per run of
the automaton over ``o1 .. om``: its guard is the transducer move's (as the run takes
it: the first enabled, when deterministic) and the automaton's guards with the output
terms put in, all over the transducer's window. The end of the input is the transducer's
final move (or nothing) read the same way into an accepting state.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import z3

from ..bvterm import TermFacts, window_vars
from .symbolic_automaton import AutomatonMove, SymbolicAutomaton
from .transducer import OUT_BITS, Transducer
from .transducer_algebra import choices, end_choices, finals_overlap, shifted
from ..querytime import remaining_ms
from .transducer_paths import path_input, satisfiable, solver, undecided


def preimage(t: Transducer, a: SymbolicAutomaton) -> SymbolicAutomaton:
    """The inputs on which ``t`` writes a sequence ``a`` accepts. ``a`` reads the
    outputs (``OUT_BITS``-bit elements) one at a time: lookback 0."""
    if a.bits != OUT_BITS:
        raise ValueError(f"the automaton reads {a.bits}-bit elements; a transducer writes {OUT_BITS}-bit ones")
    if a.lookback != 0 or any(window_vars(g) for g in a.finals.values()):
        raise ValueError("the automaton must read its element alone (lookback 0)")
    o = z3.BitVec("w0", OUT_BITS)
    k = t.lookback
    # a deterministic transducer's moves of a state known not to overlap: each move's own
    # guard is when the run takes it (not "and no earlier one"); its final moves are asked
    # apart (moves that do not overlap say nothing of them: the run takes the first end)
    exclusive = not t.nondeterministic and t.overlapping() is None
    exclusive_ends = not t.nondeterministic and not finals_overlap(t)

    def reads(qa: int, outs: tuple) -> list[tuple[list[z3.BoolRef], int]]:
        """The automaton's runs from ``qa`` over the output terms: (conditions, end)."""
        runs: list[tuple[list[z3.BoolRef], int]] = [([], qa)]
        for term in outs:
            term = term if z3.is_bv(term) and term.size() == OUT_BITS else z3.BitVecVal(term, OUT_BITS)
            nxt = []
            for conds, q in runs:
                for m in a.out_of(q):
                    g = z3.simplify(z3.substitute(m.guard, (o, term)))
                    if not z3.is_false(g):
                        nxt.append((conds + ([] if z3.is_true(g) else [g]), m.dst))
            runs = nxt
        return runs

    index: dict[tuple[int, int, int], int] = {}
    todo: deque[tuple[int, int, int]] = deque()

    def state(key: tuple[int, int, int]) -> int:
        if key not in index:
            index[key] = len(index)
            todo.append(key)
        return index[key]

    init = tuple(z3.BitVecVal(v, OUT_BITS) for v in t.initial_output)
    initials = tuple(sorted({state((t.initial, q, 0)) for qa in a.initials for c, q in reads(qa, init) if not c}))
    moves: list[AutomatonMove] = []
    finals: dict[int, z3.BoolRef] = {}
    while todo:
        qt, qa, d = key = todo.popleft()
        src = index[key]
        for m, en in choices(t, qt, d, exclusive):
            needs = frozenset(j for x in (m.guard, *m.outputs) for j in window_vars(x))
            for conds, qa2 in reads(qa, m.outputs):
                g = z3.And(en, *conds) if conds else en
                moves.append(AutomatonMove(src, g, state((m.dst, qa2, min(d + 1, k))), needs))
        ends = [z3.And(c, *conds) if conds else c for c, outs in end_choices(t, qt, d, exclusive_ends)
                for conds, q in reads(qa, outs) if q in a.finals and not z3.is_false(a.finals[q])]
        if ends:
            finals[src] = ends[0] if len(ends) == 1 else z3.Or(*ends)
    return SymbolicAutomaton(t.bits, len(index), initials, moves, finals)


@dataclass
class Emptiness:
    status: str  # "empty" | "nonempty" | "unknown"
    witness: list[int] | None = None  # a shortest accepted input (status "nonempty")
    reason: str = ""
    nodes: int = 0


def shortest_accepted(p: SymbolicAutomaton, max_nodes: int = 100_000, deadline: float | None = None) -> Emptiness:
    """A shortest input ``p`` accepts, breadth first. A node is a state under what the
    last ``lookback`` moves of its path said of the window (moved back a place a step,
    dropped past the window): the future reads no more, so "empty" is exact. A path is
    confirmed by an input solved along all of it and run on ``p``; a node whose first
    path was not confirmed is searched again along others (up to 16): when none is
    confirmed the answer is unknown, never "empty"."""
    k = p.lookback
    res = Emptiness("unknown")
    facts = TermFacts()
    moved: dict[int, tuple[z3.BoolRef, z3.BoolRef | None]] = {}  # id -> (term, one place back or None)

    def back(c: z3.BoolRef) -> z3.BoolRef | None:
        hit = moved.get(c.get_id())
        if hit is None:  # (the entry keeps the term: its id is not reused)
            js = facts.places(c)
            out = None if js and max(js) + 1 > k else shifted(c)
            hit = moved[c.get_id()] = (c, out)
        return hit[1]

    def context(ctx: tuple, c: z3.BoolRef) -> tuple[z3.BoolRef, ...]:
        """The context after a move with guard ``c`` from a node with context ``ctx``."""
        out = []
        for x in ctx + (c,):
            y = back(x)
            if y is not None and not z3.is_true(y):
                out.append(y)
        return tuple(out)

    unconfirmed = ""

    def accepted(conds: tuple, ctx: tuple, q: int) -> bool:
        nonlocal unconfirmed
        if q not in p.finals:
            return False
        fin = p.finals[q]
        if not satisfiable(z3.And(*ctx, fin) if ctx else fin, deadline):
            return False
        # the end guard reads w1.. of the position after the last element
        w = path_input(list(conds) + [fin], p.bits, len(conds))
        if w is not None and p.accepts(w):
            res.status, res.witness = "nonempty", w
            return True
        unconfirmed = unconfirmed or "an accepting path that no input takes along it"
        return False

    visits: dict[tuple, int] = {}
    queue: deque[tuple[int, tuple, tuple]] = deque()  # state, the path's guards, the context
    for q in p.initials:
        if accepted((), (), q):
            return res
        visits[(q, ())] = 1
        queue.append((q, (), ()))
    while queue:
        if deadline is not None and time.perf_counter() > deadline:
            res.reason = "time limit"
            return res
        q, conds, ctx = queue.popleft()
        res.nodes += 1
        s = solver()
        if deadline is not None:
            s.set("timeout", remaining_ms(deadline))
        s.add(*ctx)
        for m in p.out_of(q):
            if any(j > len(conds) for j in m.needs | facts.places(m.guard)):
                continue  # it reads before the stream's start
            s.push()
            s.add(m.guard)
            r = s.check()
            s.pop()
            if r == z3.unknown:
                raise undecided(s, deadline)
            if r != z3.sat:
                continue
            nctx = context(ctx, m.guard)
            key = (m.dst, tuple(c.get_id() for c in nctx))
            n = visits.get(key, 0)
            if n and not (unconfirmed and n <= 16):
                continue
            if len(visits) >= max_nodes:
                res.reason = f"more than {max_nodes} nodes"
                return res
            visits[key] = n + 1
            path = conds + (m.guard,)
            if accepted(path, nctx, m.dst):
                return res
            queue.append((m.dst, path, nctx))
    if unconfirmed:
        res.reason = unconfirmed
    else:
        res.status = "empty"
    return res
