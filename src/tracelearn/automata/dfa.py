"""Deterministic finite automata over string letters, possibly partial.

States are the integers ``0..num_states-1``. A missing transition rejects: the run
falls into an implicit dead state. ``complete()`` makes that sink explicit; the
product constructions treat it the same way, so partial and complete automata mix
freely, and so do automata over different alphabets (a letter missing from one
alphabet behaves like a missing transition there).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

Word = tuple[str, ...]
Edge = tuple[int, str, int]


@dataclass(frozen=True)
class DFA:
    alphabet: tuple[str, ...]
    num_states: int
    initial: int
    accepting: frozenset[int]
    transitions: dict[tuple[int, str], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Normalise containers so that equality is structural whatever the caller passed.
        object.__setattr__(self, "alphabet", tuple(self.alphabet))
        object.__setattr__(self, "accepting", frozenset(self.accepting))
        object.__setattr__(self, "transitions", dict(self.transitions))
        if len(set(self.alphabet)) != len(self.alphabet):
            raise ValueError(f"duplicate letters in alphabet {self.alphabet!r}")
        if self.num_states < 1:
            raise ValueError("a DFA has at least one state")
        n = self.num_states
        if not 0 <= self.initial < n:
            raise ValueError(f"initial state {self.initial} out of range 0..{n - 1}")
        if any(not 0 <= q < n for q in self.accepting):
            raise ValueError("accepting state out of range")
        if self.transitions:
            # Set comprehensions rather than one Python loop: products are large.
            ends = {s for s, _ in self.transitions} | set(self.transitions.values())
            if min(ends) < 0 or max(ends) >= n:
                raise ValueError(f"transition state out of range 0..{n - 1}")
            stray = {a for _, a in self.transitions} - set(self.alphabet)
            if stray:
                raise ValueError(f"transition letters {sorted(stray)} not in the alphabet")

    def __hash__(self) -> int:
        return hash((self.alphabet, self.num_states, self.initial, self.accepting,
                     frozenset(self.transitions.items())))

    # ------------------------------------------------------------------ basics

    @property
    def states(self) -> range:
        return range(self.num_states)

    @staticmethod
    def empty(alphabet: Sequence[str]) -> DFA:
        """The automaton of the empty language (one state, no edges)."""
        return DFA(tuple(alphabet), 1, 0, frozenset(), {})

    @staticmethod
    def universal(alphabet: Sequence[str]) -> DFA:
        """The automaton accepting every word over ``alphabet``."""
        return DFA(tuple(alphabet), 1, 0, frozenset({0}), {(0, a): 0 for a in alphabet})

    @staticmethod
    def from_words(alphabet: Sequence[str], words: Iterable[Sequence[str]]) -> DFA:
        """The prefix-tree acceptor of a finite set of words (partial)."""
        alphabet = tuple(alphabet)
        trans: dict[tuple[int, str], int] = {}
        accepting: set[int] = set()
        n = 1
        for w in words:
            s = 0
            for a in w:
                if a not in alphabet:
                    raise ValueError(f"letter {a!r} not in the alphabet")
                t = trans.get((s, a))
                if t is None:
                    t = n
                    n += 1
                    trans[(s, a)] = t
                s = t
            accepting.add(s)
        return DFA(alphabet, n, 0, frozenset(accepting), trans)

    def step(self, state: int | None, letter: str) -> int | None:
        if state is None:
            return None
        return self.transitions.get((state, letter))

    def run(self, word: Iterable[str], start: int | None = None) -> int | None:
        """The state reached on ``word``, or None if the run leaves the automaton."""
        s: int | None = self.initial if start is None else start
        for a in word:
            if s is None:
                return None
            s = self.transitions.get((s, a))
        return s

    def accepts(self, word: Iterable[str]) -> bool:
        s = self.run(word)
        return s is not None and s in self.accepting

    def shortest_rejected_prefix(self, word: Sequence[str]) -> int | None:
        """The length of the shortest prefix of ``word`` this automaton rejects, or
        None if it accepts every prefix."""
        s: int | None = self.initial
        for k in range(len(word) + 1):
            if s is None or s not in self.accepting:
                return k
            if k < len(word):
                s = self.transitions.get((s, word[k]))
        return None

    def successors(self, state: int) -> list[tuple[str, int]]:
        """Outgoing edges of ``state`` in alphabet order."""
        out = []
        for a in self.alphabet:
            t = self.transitions.get((state, a))
            if t is not None:
                out.append((a, t))
        return out

    def edges(self) -> list[Edge]:
        """All edges, sorted by source state then alphabet order."""
        return [(s, a, t) for s in self.states for a, t in self.successors(s)]

    def is_complete(self) -> bool:
        return len(self.transitions) == self.num_states * len(self.alphabet)

    # ------------------------------------------------------------ reachability

    def reachable_states(self) -> set[int]:
        seen = {self.initial}
        todo = [self.initial]
        while todo:
            s = todo.pop()
            for _, t in self.successors(s):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return seen

    def live_states(self) -> set[int]:
        """States from which some accepting state is reachable (co-reachable)."""
        preds: dict[int, list[int]] = {}
        for (s, _), t in self.transitions.items():
            preds.setdefault(t, []).append(s)
        live = set(self.accepting)
        todo = list(live)
        while todo:
            t = todo.pop()
            for s in preds.get(t, ()):
                if s not in live:
                    live.add(s)
                    todo.append(s)
        return live

    def restrict(self, keep: Iterable[int], alphabet: Sequence[str] | None = None) -> DFA:
        """The sub-automaton on the states ``keep`` (renumbered in increasing order);
        edges leaving ``keep`` are dropped. The initial state is always kept."""
        kept = sorted(set(keep) | {self.initial})
        index = {q: i for i, q in enumerate(kept)}
        alpha = self.alphabet if alphabet is None else tuple(alphabet)
        letters = set(alpha)
        trans = {(index[s], a): index[t] for (s, a), t in self.transitions.items()
                 if s in index and t in index and a in letters}
        return DFA(alpha, len(kept), index[self.initial],
                   frozenset(index[q] for q in self.accepting if q in index), trans)

    def reachable(self) -> DFA:
        """Drop states unreachable from the initial state."""
        return self.restrict(self.reachable_states())

    def remove_sink(self) -> DFA:
        """Drop the states from which no accepting state is reachable, with their
        incoming edges (missing transitions reject, so the language is unchanged).
        The initial state stays even when it is dead (empty language)."""
        return self.restrict(self.live_states())

    def trim(self) -> DFA:
        """Reachable and co-reachable part: the sink-free automaton pv draws."""
        return self.reachable().remove_sink()

    def has_edges_from_accepting(self) -> bool:
        """Whether an accepting state has an edge to a live state.

        Edges into dead states are ignored: ``remove_sink`` deletes them and they do
        not change the language. pv uses this as a sign that the bounds are too
        small, because a failing assertion ends every path (paper Sec. 7.1)."""
        live = self.live_states()
        return any(s in self.accepting and t in live for (s, _), t in self.transitions.items())

    # ------------------------------------------------------------ completion

    def complete(self, alphabet: Sequence[str] | None = None) -> DFA:
        """An equivalent complete DFA over ``alphabet`` (default: own alphabet, which
        must contain it); missing transitions go to an explicit sink, added last."""
        alpha = self.alphabet if alphabet is None else tuple(alphabet)
        missing = [(s, a) for s in self.states for a in alpha if (s, a) not in self.transitions]
        if not missing and alpha == self.alphabet:
            return self
        letters = set(alpha)
        trans = {k: t for k, t in self.transitions.items() if k[1] in letters}
        if missing:
            sink = self.num_states
            for k in missing:
                trans[k] = sink
            for a in alpha:
                trans[(sink, a)] = sink
            return DFA(alpha, self.num_states + 1, self.initial, self.accepting, trans)
        return DFA(alpha, self.num_states, self.initial, self.accepting, trans)

    def complement(self) -> DFA:
        c = self.complete()
        return DFA(c.alphabet, c.num_states, c.initial, frozenset(c.states) - c.accepting, c.transitions)

    # ------------------------------------------------------------ minimisation

    def minimize(self) -> DFA:
        """The complete minimal DFA, canonically numbered.

        Hopcroft's partition refinement on the reachable part of the completed
        automaton; then blocks are numbered in breadth-first order from the initial
        state, letters in alphabet order. Two DFAs over the same alphabet tuple
        accept the same language iff their ``minimize()`` results are equal."""
        c = self.reachable().complete()
        block_of = _hopcroft(c)
        return _canonical_quotient(c, block_of)

    def canonical(self) -> DFA:
        """Renumber reachable states in breadth-first order (no merging)."""
        r = self.reachable()
        return _canonical_quotient(r, list(r.states))

    # ------------------------------------------------------------ products

    def product(self, other: DFA, accept: Callable[[bool, bool], bool]) -> DFA:
        """Synchronous product over the union of the alphabets (own letters first).

        A missing transition (or letter) moves that component to an implicit dead
        state; the product is complete and contains only reachable pairs."""
        alpha = self.alphabet + tuple(a for a in other.alphabet if a not in set(self.alphabet))
        start = (self.initial, other.initial)
        index: dict[tuple[int | None, int | None], int] = {start: 0}
        order = [start]
        trans: dict[tuple[int, str], int] = {}
        i = 0
        t1, t2 = self.transitions, other.transitions
        while i < len(order):
            p, q = order[i]
            for a in alpha:
                nxt = (t1.get((p, a)) if p is not None else None, t2.get((q, a)) if q is not None else None)
                j = index.get(nxt)
                if j is None:
                    j = index[nxt] = len(order)
                    order.append(nxt)
                trans[(i, a)] = j
            i += 1
        acc = frozenset(k for k, (p, q) in enumerate(order)
                        if accept(p is not None and p in self.accepting,
                                  q is not None and q in other.accepting))
        return DFA(alpha, len(order), 0, acc, trans)

    def intersection(self, other: DFA) -> DFA:
        return self.product(other, lambda x, y: x and y)

    def union(self, other: DFA) -> DFA:
        return self.product(other, lambda x, y: x or y)

    def difference(self, other: DFA) -> DFA:
        return self.product(other, lambda x, y: x and not y)

    def symmetric_difference(self, other: DFA) -> DFA:
        return self.product(other, lambda x, y: x != y)

    # ------------------------------------------------------------ languages

    def is_empty(self) -> bool:
        return not (self.reachable_states() & self.accepting)

    def access_words(self) -> dict[int, Word]:
        """A shortest word to each reachable state (breadth-first, letters in
        alphabet order)."""
        seen: dict[int, Word] = {self.initial: ()}
        q = deque([self.initial])
        while q:
            s = q.popleft()
            for a in self.alphabet:
                t = self.transitions.get((s, a))
                if t is not None and t not in seen:
                    seen[t] = seen[s] + (a,)
                    q.append(t)
        return seen

    def shortest_word(self) -> Word | None:
        """The shortest accepted word, least in alphabet order among equals."""
        # Breadth-first with letters in order: each state is first reached by the
        # shortlex-least word leading to it, and states are dequeued in that order.
        parent: dict[int, tuple[int, str] | None] = {self.initial: None}
        q = deque([self.initial])
        while q:
            s = q.popleft()
            if s in self.accepting:
                return _path(parent, s)
            for a, t in self.successors(s):
                if t not in parent:
                    parent[t] = (s, a)
                    q.append(t)
        return None

    def equivalence_witness(self, other: DFA,
                            starts: tuple[int | None, int | None] | None = None) -> Word | None:
        """A shortest word on which the two automata disagree, least in alphabet
        order (own letters first) among equals; None if they are equivalent.
        ``starts`` runs both from other states than the initial ones (None: dead)."""
        # Breadth-first over reachable pairs, stopping at the first disagreement;
        # None stands for the implicit dead state.
        alpha = self.alphabet + tuple(a for a in other.alphabet if a not in set(self.alphabet))
        t1, t2 = self.transitions, other.transitions
        acc1, acc2 = self.accepting, other.accepting
        start = (self.initial, other.initial) if starts is None else starts
        parent: dict[tuple[int | None, int | None], tuple[tuple[int | None, int | None], str] | None] = {start: None}
        q = deque([start])
        while q:
            pair = q.popleft()
            p, r = pair
            if (p is not None and p in acc1) != (r is not None and r in acc2):
                letters: list[str] = []
                step = parent[pair]
                while step is not None:
                    letters.append(step[1])
                    step = parent[step[0]]
                return tuple(reversed(letters))
            for a in alpha:
                nxt = (t1.get((p, a)) if p is not None else None, t2.get((r, a)) if r is not None else None)
                if nxt not in parent:
                    parent[nxt] = (pair, a)
                    q.append(nxt)
        return None

    def equivalent(self, other: DFA) -> bool:
        return self.equivalence_witness(other) is None

    def agree_upto(self, other: DFA, max_len: int) -> bool:
        """Same accepted words of length at most ``max_len`` (the witness is a
        shortest disagreement, so no enumeration of words is needed)."""
        w = self.equivalence_witness(other)
        return w is None or len(w) > max_len

    def words(self, max_len: int) -> list[Word]:
        """All accepted words of length at most ``max_len``, in shortlex order."""
        return list(self.iter_words(max_len))

    def iter_words(self, max_len: int) -> Iterator[Word]:
        """The accepted words of length at most ``max_len`` one by one, in shortlex
        order. Memory stays linear in ``max_len`` (the language may be huge): a
        prefix is extended only towards states that accept in exactly the letters left."""
        # can[k]: states from which some word of exactly k letters is accepted.
        can: list[set[int]] = [set(self.accepting)]
        for _ in range(max_len):
            prev = can[-1]
            can.append({s for (s, _a), t in self.transitions.items() if t in prev})
        for n in range(max_len + 1):
            if self.initial not in can[n]:
                continue
            stack: list[tuple[int, Word]] = [(self.initial, ())]
            while stack:
                s, w = stack.pop()
                if len(w) == n:
                    yield w
                    continue
                rest = can[n - len(w) - 1]
                stack.extend((t, w + (a,)) for a, t in reversed(self.successors(s)) if t in rest)

    # ------------------------------------------------------------ JSON

    def to_dict(self) -> dict:
        return {
            "alphabet": list(self.alphabet),
            "states": self.num_states,
            "initial": self.initial,
            "accepting": sorted(self.accepting),
            "transitions": [{"from": s, "letter": a, "to": t} for s, a, t in self.edges()],
        }

    @staticmethod
    def from_dict(data: dict) -> DFA:
        """Inverse of ``to_dict``; ``states`` may also be a list of state ids, which
        are then renumbered ``0..n-1`` in list order."""
        states = data["states"]
        if isinstance(states, int):
            index = {i: i for i in range(states)}
        else:
            index = {q: i for i, q in enumerate(states)}
        trans = {(index[e["from"]], str(e["letter"])): index[e["to"]] for e in data["transitions"]}
        return DFA(tuple(str(a) for a in data["alphabet"]), len(index), index[data["initial"]],
                   frozenset(index[q] for q in data["accepting"]), trans)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    @staticmethod
    def from_json(text: str) -> DFA:
        return DFA.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return (f"DFA(states={self.num_states}, alphabet={list(self.alphabet)}, initial={self.initial}, "
                f"accepting={sorted(self.accepting)}, edges={len(self.transitions)})")


def _path(parent: dict[int, tuple[int, str] | None], s: int) -> Word:
    letters: list[str] = []
    p = parent[s]
    while p is not None:
        letters.append(p[1])
        p = parent[p[0]]
    return tuple(reversed(letters))


def _hopcroft(c: DFA) -> list[int]:
    """Block index of every state of the complete DFA ``c`` under Myhill-Nerode."""
    n = c.num_states
    inverse: dict[str, list[list[int]]] = {a: [[] for _ in range(n)] for a in c.alphabet}
    for (s, a), t in c.transitions.items():
        inverse[a][t].append(s)
    acc = set(c.accepting)
    rej = set(c.states) - acc
    blocks: list[set[int]] = [b for b in (acc, rej) if b]
    block_of = [0] * n
    for i, b in enumerate(blocks):
        for q in b:
            block_of[q] = i
    waiting: deque[tuple[int, str]] = deque()
    in_waiting: set[tuple[int, str]] = set()
    # Splitting by one of the two initial blocks suffices; take the smaller.
    first = min(range(len(blocks)), key=lambda i: len(blocks[i])) if blocks else 0
    if len(blocks) == 2:
        for a in c.alphabet:
            waiting.append((first, a))
            in_waiting.add((first, a))
    while waiting:
        splitter = waiting.popleft()
        in_waiting.discard(splitter)
        b, a = splitter
        inv = inverse[a]
        pre: set[int] = set()
        for t in blocks[b]:
            pre.update(inv[t])
        touched: dict[int, set[int]] = {}
        for s in pre:
            touched.setdefault(block_of[s], set()).add(s)
        for y, inside in touched.items():
            if len(inside) == len(blocks[y]):
                continue
            rest = blocks[y] - inside
            new = len(blocks)
            # The new block takes the smaller half: fewer states to relabel.
            small, large = (inside, rest) if len(inside) <= len(rest) else (rest, inside)
            blocks[y] = large
            blocks.append(small)
            for q in small:
                block_of[q] = new
            # Hopcroft: if (y, a) waits, both halves must wait; otherwise the smaller
            # half suffices. ``new`` is the smaller half, so it waits in both cases.
            for letter in c.alphabet:
                waiting.append((new, letter))
                in_waiting.add((new, letter))
    return block_of


def _canonical_quotient(c: DFA, block_of: Sequence[int]) -> DFA:
    """Quotient of ``c`` by ``block_of``, blocks numbered in BFS order from the initial block."""
    rep: dict[int, int] = {}
    for q in c.states:
        rep.setdefault(block_of[q], q)
    number = {block_of[c.initial]: 0}
    order = [block_of[c.initial]]
    trans: dict[tuple[int, str], int] = {}
    i = 0
    while i < len(order):
        b = order[i]
        s = rep[b]
        for a in c.alphabet:
            t = c.transitions.get((s, a))
            if t is None:
                continue
            tb = block_of[t]
            if tb not in number:
                number[tb] = len(order)
                order.append(tb)
            trans[(i, a)] = number[tb]
        i += 1
    acc = frozenset(number[block_of[q]] for q in c.accepting if block_of[q] in number)
    return DFA(c.alphabet, len(order), 0, acc, trans)
