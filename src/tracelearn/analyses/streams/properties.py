"""Output inclusion (a filter never writes a given sequence: the pre-image of the
outputs holding it is empty), a search on the learned transducer. The other properties
(equivalence, idempotence, commutativity, inverse) are operations of the transducers'
algebra (``automata/transducer_algebra``).

The search over-approximates what the window holds when the lookback is over 0 (each
node under what the last steps of its paths said of the window): "never" holds for
every input, "writes" is an input the transducer runs, and a step no input found
reaches leaves the answer unknown."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from ...automata.transducer import Transducer, window, window_vars
from ...automata.transducer_algebra import enabled, end_choices
from ...automata.transducer_paths import path_input, satisfiable
from ...z3dag import conjuncts, substitute


def _sat(f: z3.BoolRef, res: "Search", deadline: float | None) -> bool:
    if deadline is not None and time.perf_counter() >= deadline:
        raise TimeoutError("time limit")
    res.solver_calls += 1
    return satisfiable(f, deadline)


@dataclass
class Search:
    status: str  # "never" | "writes" | "unknown"
    witness: list[int] | None = None
    reason: str = ""
    nodes: int = 0
    solver_calls: int = 0


def _kmp(pattern: list[int]) -> Callable[[int, int], int]:
    """The matcher of ``pattern``: how much of it the outputs end with, after one more."""
    fail = [0] * len(pattern)
    j = 0
    for i in range(1, len(pattern)):
        while j and pattern[i] != pattern[j]:
            j = fail[j - 1]
        if pattern[i] == pattern[j]:
            j += 1
        fail[i] = j

    def step(s: int, v: int) -> int:
        if s == len(pattern):
            s = fail[s - 1]
        while s and pattern[s] != v:
            s = fail[s - 1]
        return s + 1 if pattern[s] == v else 0
    return step


def _contains(out: list[int] | None, pattern: list[int]) -> bool:
    n = len(pattern)
    return out is not None and any(out[i:i + n] == pattern for i in range(len(out) - n + 1))


# Past this many contexts (what the last steps said of the window) at one search node,
# the node and what it reaches are searched without one, which covers them all (and
# leaves a step that writes the pattern there unexplained, unknown). javascript_escape's
# busiest node has 256-512: with fewer, "never writes <" was unknown.
CONTEXTS = 1024


@dataclass
class _Node:
    """A search node's paths: each with its context (its last steps' conditions, over
    the window here); the node is searched under the union of their contexts."""

    paths: list[tuple[z3.BoolRef, tuple]]  # (context, the path's step conditions)
    # the contexts met, by z3's id (it shares equal terms), each kept: a freed term's id is reused
    seen: dict[int, z3.BoolRef] = field(default_factory=dict)
    free: bool = False  # searched without a context (too many): that covers every path
    queued: bool = True


def writes(t: Transducer, pattern: list[int], max_nodes: int = 100_000, deadline: float | None = None) -> Search:
    """Does some input make ``t`` write ``pattern`` (consecutive output values)? A
    search over (state, window places defined, how much of the pattern the outputs end
    with), breadth first, each node under what its paths' last ``lookback`` steps said
    of the window (their union): a step is taken where its guard and that agree. An
    output term splits the search by the values the matcher tells apart (the pattern's
    own, and any other). A step that writes the pattern is confirmed by an input
    solved along one of its node's paths and run on the transducer. A query the solver
    leaves undecided by ``deadline`` raises TimeoutError."""
    if not pattern:
        raise ValueError("an empty sequence is written by every filter")
    step = _kmp(pattern)
    n = len(pattern)
    res = Search("unknown")
    values = sorted(set(pattern))
    s0 = 0
    for v in t.initial_output:
        s0 = step(s0, v)
        if s0 == n:
            return _found(t, pattern, [], res) or res
    k = t.lookback
    start = (t.initial, 0, s0)
    nodes: dict[tuple[int, int, int], _Node] = {start: _Node([(z3.BoolVal(True), ())])}
    ws = [window(j, t.bits) for j in range(2 * k + 1)]
    moved: dict[tuple[int, int], tuple[z3.BoolRef, list[z3.BoolRef]]] = {}
    queue = deque([start])
    unreached = 0

    def branches(s: int, outs: tuple) -> list[tuple[list[z3.BoolRef], int, bool]]:
        # (conditions on the output terms, matcher state, whether the pattern was written)
        todo: list[tuple[list[z3.BoolRef], int, int]] = [([], s, 0)]
        done = []
        while todo:
            cond, at, i = todo.pop()
            if i == len(outs):
                done.append((cond, at, False))
                continue
            o = outs[i]
            if z3.is_bv_value(o):
                nxt = [(cond, step(at, o.as_signed_long()))]
            else:
                nxt = [(cond + [o == v], step(at, v)) for v in values]
                nxt.append((cond + [o != v for v in values], 0))  # a value not in the pattern: none of it
            for c, a in nxt:
                if a == n:
                    done.append((c, a, True))
                else:
                    todo.append((c, a, i + 1))
        return done

    def context(conds: tuple) -> z3.BoolRef:
        # the last k steps' conditions, over the next step's window (w<j> of the step i back is
        # w<j+i> then), less their conjuncts about elements that left it (no step reads them
        # again: dropped, the context admits more, and equal contexts meet sooner)
        out: list[z3.BoolRef] = []
        for i in range(1, min(k, len(conds)) + 1):
            out += shifted(conds[-i], i)
        return z3.And(*out) if out else z3.BoolVal(True)

    def shifted(c: z3.BoolRef, i: int) -> list[z3.BoolRef]:
        # (once per condition and shift: the paths of a node share their steps)
        hit = moved.get((c.get_id(), i))
        if hit is None:
            kept = []
            for x in conjuncts(c):
                places = window_vars(x)
                if places and any(j + i <= k for j in places):
                    kept.append(substitute(x, [(ws[j], ws[j + i]) for j in places]))
            hit = moved[(c.get_id(), i)] = (c, kept)  # c kept: its id is not reused
        return hit[1]

    def candidate(node: _Node, ctx: z3.BoolRef, last: z3.BoolRef, more: int) -> bool:
        # ``last`` writes the pattern where the node's search context ``ctx`` admits it: a
        # witness is an input along one of the node's recorded paths whose own context
        # admits it (``more``: 1 for a step, 0 for a final move), run on the transducer;
        # none found, the step stays unexplained (the answer cannot be "never")
        nonlocal unreached
        if not _sat(z3.And(ctx, last), res, deadline):
            return False
        for pctx, conds in node.paths:
            if not _sat(z3.And(pctx, last), res, deadline):
                continue
            if _found(t, pattern, path_input(list(conds) + [last], t.bits, len(conds) + more), res) is not None:
                return True
        unreached += 1
        return False

    def arrive(key: tuple[int, int, int], conds: tuple, free: bool) -> bool:
        # a path to ``key``: kept if what it says of the window is new there; ``free``: it
        # comes from a node searched without a context, and so is ``key`` from now on
        # (its paths' contexts no longer cover what reaches it). False: too many nodes.
        ctx = context(conds)
        node = nodes.get(key)
        if node is None:
            if len(nodes) >= max_nodes:
                return False
            nodes[key] = _Node([(ctx, conds)], {ctx.get_id(): ctx}, free)
            queue.append(key)
            return True
        if node.free:
            return True  # searched without a context: that covers it
        if free:
            node.free = True
        else:
            seen = node.seen.get(ctx.get_id())
            if seen is not None and seen.eq(ctx):
                return True
            node.seen[ctx.get_id()] = ctx
            if not _sat(z3.And(ctx, z3.Not(z3.Or(*[c for c, _ in node.paths]))), res, deadline):
                return True  # its window is one the node is searched under already
            node.paths.append((ctx, conds))
            node.free = len(node.paths) > CONTEXTS
        if not node.queued:
            node.queued = True
            queue.append(key)
        return True

    while queue:
        key = queue.popleft()
        q, d, s = key
        node = nodes[key]
        node.queued = False
        res.nodes += 1
        ctx = z3.BoolVal(True) if node.free else z3.Or(*[c for c, _ in node.paths])
        for g, outs in end_choices(t, q, d):
            for cond, _, hit in branches(s, outs):
                if hit and candidate(node, ctx, z3.And(g, *cond), 0):
                    return res
        for m in t.out_of(q):
            e = enabled(m.guard, m.outputs, d)
            if z3.is_false(e):
                continue
            for cond, a, hit in branches(s, m.outputs):
                c = z3.And(e, *cond)
                if hit:
                    if candidate(node, ctx, c, 1):
                        return res
                    continue
                if not _sat(z3.And(ctx, c), res, deadline):
                    continue
                for _, conds in node.paths:  # each path goes on (one whose window the step contradicts
                    # arrives with a context nothing satisfies: covered, dropped)
                    if not arrive((m.dst, min(d + 1, k), a), conds + (c,), node.free):
                        res.reason = f"more than {max_nodes} search nodes"
                        return res
    if unreached:
        res.reason = (f"{unreached} step(s) writing it that no input found reaches (the search over-approximates "
                      "what the window holds)")
        return res
    res.status = "never"
    return res


def _found(t: Transducer, pattern: list[int], witness: list[int] | None, res: Search) -> list[int] | None:
    """``witness`` when the transducer, run on it, writes ``pattern`` (then ``res`` says so)."""
    if witness is None or not _contains(t.run(witness), pattern):
        return None
    res.status, res.witness = "writes", witness
    return witness
