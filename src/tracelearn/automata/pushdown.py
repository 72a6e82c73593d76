"""Pushdown automata given as one graph per procedure (recursive state machines), and
their intersection with a DFA.

A procedure call pushes the return node and jumps to the callee's entry; reaching one
of the callee's exit nodes pops it. This is Pac-Man's error path PDA B_P (Sec. 9.2),
built by the analysis from the program; here only its languages are known:

- *error* mode (``shortest_error_word``): a word is accepted when a path reaches an
  error node having read a prefix ``e`` of it; error nodes then read anything
  (they loop on every letter). With a DFA H, the shortest word of L(H) ∩ L(B_P)
  is ``e`` followed by H's shortest way from there to acceptance.
- ``over_approximation_empty``: the finite automaton B_O in which a return may go
  back to any call site of the procedure (Sec. 10): a cheap first test, since
  L(B_P) ⊆ L(B_O).

Emptiness with a DFA uses procedure summaries: for a procedure entered in DFA state
q, the DFA states in which it can return (and the shortest words to them) and the
states in which it can reach an error. Summaries are computed to a fixpoint
(recursion), each with Dijkstra over the procedure's nodes (letters cost 1,
lambda-moves 0, a call the length of the callee's summary word).
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field

from .dfa import DFA, Word

Node = Hashable


@dataclass
class RecursiveAutomaton:
    """``edges[n]``: ("letter", a, m), ("lambda", None, m) or ("call", procedure, return
    node m). ``entry[p]`` is procedure p's entry node, ``exits`` the nodes where a
    procedure returns, ``errors`` the accepting (error) nodes."""

    main: str
    entry: dict[str, Node]
    edges: dict[Node, list[tuple[str, object, Node]]] = field(default_factory=dict)
    exits: set[Node] = field(default_factory=set)
    errors: set[Node] = field(default_factory=set)
    proc_of: dict[Node, str] = field(default_factory=dict)

    def out(self, n: Node) -> list[tuple[str, object, Node]]:
        return self.edges.get(n, [])


@dataclass
class EmptinessStats:
    contexts: int = 0      # (procedure, DFA state) summaries computed
    rounds: int = 0        # Dijkstra runs to reach the fixpoint


def _completions(dfa: DFA) -> dict[int, Word]:
    """For each state, the shortest word from it to acceptance (dead states absent)."""
    rev: dict[int, list[tuple[int, str]]] = {}
    for (s, a), t in dfa.transitions.items():
        rev.setdefault(t, []).append((s, a))
    best: dict[int, Word] = {q: () for q in dfa.accepting}
    todo = deque(sorted(dfa.accepting))
    while todo:
        t = todo.popleft()
        for s, a in sorted(rev.get(t, [])):
            if s not in best:
                best[s] = (a,) + best[t]
                todo.append(s)
    return best


def shortest_error_word(ra: RecursiveAutomaton, dfa: DFA,
                        stats: EmptinessStats | None = None) -> tuple[Word, Word] | None:
    """The shortest word of L(dfa) ∩ L(ra) in error mode, as (``e``, ``rest``): ``e``
    is read on the way to the error node, ``rest`` takes the DFA from there to
    acceptance. None if the intersection is empty."""
    stats = stats if stats is not None else EmptinessStats()
    live = _completions(dfa)
    ret: dict[tuple[str, int], dict[int, Word]] = {}
    err: dict[tuple[str, int], dict[int, Word]] = {}
    users: dict[tuple[str, int], set[tuple[str, int]]] = {}
    todo: deque[tuple[str, int]] = deque()
    queued: set[tuple[str, int]] = set()

    def want(ctx: tuple[str, int], user: tuple[str, int] | None) -> None:
        if ctx not in ret:
            ret[ctx], err[ctx] = {}, {}
            stats.contexts += 1
            todo.append(ctx)
            queued.add(ctx)
        if user is not None:
            users.setdefault(ctx, set()).add(user)

    def better(table: dict[int, Word], q: int, w: Word) -> bool:
        old = table.get(q)
        if old is None or len(w) < len(old):
            table[q] = w
            return True
        return False

    def solve(ctx: tuple[str, int]) -> bool:
        proc, q0 = ctx
        stats.rounds += 1
        tick = itertools.count()
        start = (ra.entry[proc], q0)
        dist: dict[tuple[Node, int], Word] = {start: ()}
        heap = [(0, next(tick), start)]
        changed = False
        while heap:
            d, _, (n, q) = heapq.heappop(heap)
            w = dist[(n, q)]
            if len(w) != d:
                continue
            if n in ra.errors:
                if q in live:
                    changed |= better(err[ctx], q, w)
                continue
            if n in ra.exits:
                changed |= better(ret[ctx], q, w)
            steps: list[tuple[Node, int, Word]] = []
            for kind, data, m in ra.out(n):
                if kind == "lambda":
                    steps.append((m, q, w))
                elif kind == "letter":
                    t = dfa.step(q, str(data))
                    if t is not None:
                        steps.append((m, t, w + (str(data),)))
                else:
                    callee = (str(data), q)
                    want(callee, ctx)
                    for qe, we in err[callee].items():
                        changed |= better(err[ctx], qe, w + we)
                    for qr, wr in ret[callee].items():
                        steps.append((m, qr, w + wr))
            for m, t, w2 in steps:
                old = dist.get((m, t))
                if old is None or len(w2) < len(old):
                    dist[(m, t)] = w2
                    heapq.heappush(heap, (len(w2), next(tick), (m, t)))
        return changed

    root = (ra.main, dfa.initial)
    want(root, None)
    while todo:
        ctx = todo.popleft()
        queued.discard(ctx)
        if solve(ctx):
            for u in users.get(ctx, ()):
                if u not in queued:
                    todo.append(u)
                    queued.add(u)
    found = [(len(e) + len(live[q]), e, live[q]) for q, e in err[root].items()]
    if not found:
        return None
    _, e, rest = min(found, key=lambda t: (t[0], t[1], t[2]))
    return e, rest


def over_approximation_empty(ra: RecursiveAutomaton, dfa: DFA) -> bool:
    """Is L(dfa) ∩ L(B_O) empty, B_O being ``ra`` with returns to any call site of the
    procedure (a finite automaton)? True implies the pushdown intersection is empty."""
    live = _completions(dfa)
    returns: dict[str, set[Node]] = {}
    for n, out in ra.edges.items():
        for kind, data, m in out:
            if kind == "call":
                returns.setdefault(str(data), set()).add(m)
    start = (ra.entry[ra.main], dfa.initial)
    seen = {start}
    todo = [start]
    while todo:
        n, q = todo.pop()
        if n in ra.errors:
            if q in live:
                return False
            continue
        nxt: list[tuple[Node, int]] = []
        if n in ra.exits:
            nxt += [(m, q) for m in returns.get(ra.proc_of.get(n, ""), ())]
        for kind, data, m in ra.out(n):
            if kind == "lambda":
                nxt.append((m, q))
            elif kind == "letter":
                t = dfa.step(q, str(data))
                if t is not None:
                    nxt.append((m, t))
            else:
                nxt.append((ra.entry[str(data)], q))
        for x in nxt:
            if x not in seen:
                seen.add(x)
                todo.append(x)
    return True


def accepts(ra: RecursiveAutomaton, word: Word) -> bool:
    """Exact membership of ``word`` in L(ra) (error mode)."""
    alphabet = tuple(sorted(set(word) | {"0", "1"}))
    n = len(word)
    trans = {(i, a): (i + 1 if i < n and word[i] == a else n + 1) for i in range(n + 2) for a in alphabet}
    chain = DFA(alphabet, n + 2, 0, frozenset({n}), trans)
    return shortest_error_word(ra, chain) is not None


def letters_to_error(ra: RecursiveAutomaton) -> dict[Node, int]:
    """For each node from which an error is reached without returning from the node's
    procedure (a call is entered, or stepped over as reading nothing), the fewest
    letters read on the way; absent: none is. A guide for a search, never a proof.
    (Returning to any caller, as B_O does, every branch of a recursion reaches the
    caller's check: its base case the soonest, which says nothing of the check.)"""
    back: dict[Node, list[tuple[Node, int]]] = {}
    for n, out in ra.edges.items():
        for kind, data, m in out:
            if kind == "call":
                back.setdefault(ra.entry[str(data)], []).append((n, 0))
            back.setdefault(m, []).append((n, 1 if kind == "letter" else 0))
    dist: dict[Node, int] = {e: 0 for e in ra.errors}
    todo = deque(sorted(ra.errors, key=repr))
    while todo:  # 0-1 breadth first: lambda-moves in front, letters behind
        m = todo.popleft()
        for n, cost in back.get(m, ()):
            d = dist[m] + cost
            if d < dist.get(n, d + 1):
                dist[n] = d
                if cost:
                    todo.append(n)
                else:
                    todo.appendleft(n)
    return dist
