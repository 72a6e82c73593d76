"""L# (Vaandrager, Melse, Garhewal, Frits 2022) for DFAs.

The learner keeps an *observation tree*: every word it asked, prefix-closed, each
node with the answer for its word when known (a DFA membership query answers only
for the word itself, not for its prefixes). Two nodes are *apart* when some suffix
leads, from both, to nodes with known and different answers. The *basis* is a set
of pairwise apart nodes (the states); the *frontier* are the basis' children that
are not in the basis; each frontier node keeps its *candidates*, the basis nodes
it is not apart from. The rules, applied until none fits:

- extension: ask every missing child ``b·a`` of a basis node;
- promotion: a frontier node without candidates joins the basis;
- separation: a frontier node with two candidates ``b1, b2`` is asked with a
  witness of ``b1 # b2``, which removes one of them;
- hypothesis: every frontier node has one candidate; the hypothesis maps it there.
  If it disagrees with an answer in the tree, that word is processed like a
  counterexample, without asking the teacher.

Counterexample processing: with ``ρ`` the prefix of the counterexample ``σ`` that
reaches the frontier, a binary search (as Rivest-Schapire) over positions
``j >= |ρ|`` of ``access(H-state after σ[:j]) + σ[j:]`` finds a frontier node and
a suffix proving it apart from its candidate; so every counterexample removes a
candidate, and the hypothesis changes.

Apartness is maintained incrementally: a new answer for word ``w`` can only make
apart the pairs involving a prefix of ``w``, so only those are re-examined.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from ..automata.dfa import DFA
from .learner import Learner, LearningError, MembershipOracle, Word


@dataclass(frozen=True)
class _Snapshot:
    children: tuple[tuple[tuple[str, int], ...], ...]
    out: tuple[bool | None, ...]
    access: tuple[Word, ...]
    parent: tuple[int, ...]
    basis: tuple[int, ...]
    cand: dict[int, frozenset[int]]


class LSharp(Learner):
    name = "lsharp"

    def __init__(self, alphabet: Sequence[str], oracle: MembershipOracle, *, separation: str = "ads",
                 max_states: int = 10_000) -> None:
        super().__init__(alphabet, oracle, max_states=max_states)
        if separation not in ("ads", "witness"):
            raise ValueError(f"unknown separation rule {separation!r} (ads or witness)")
        self.separation = separation
        self.children: list[dict[str, int]] = [{}]
        self.out: list[bool | None] = [None]
        self.access: list[Word] = [()]
        self.parent: list[int] = [-1]
        self.basis: list[int] = [0]
        self.basis_set: set[int] = {0}
        self.cand: dict[int, set[int]] = {}      # frontier node -> candidate basis nodes
        self.rev: dict[int, set[int]] = {0: set()}  # basis node -> frontier nodes having it as candidate
        self._witness: dict[tuple[int, int], Word] = {}
        self._hyp: DFA | None = None

    # ------------------------------------------------------------------ tree

    def _node(self, word: Word, create: bool = True) -> int | None:
        n = 0
        for a in word:
            c = self.children[n].get(a)
            if c is None:
                if not create:
                    return None
                c = len(self.out)
                self.children[n][a] = c
                self.children.append({})
                self.out.append(None)
                self.access.append(self.access[n] + (a,))
                self.parent.append(n)
            n = c
        return n

    def _walk(self, n: int, suffix: Word) -> int | None:
        for a in suffix:
            c = self.children[n].get(a)
            if c is None:
                return None
            n = c
        return n

    def _ask(self, words: Sequence[Word]) -> None:
        """Ask the words whose answer the tree lacks; update apartness."""
        todo: dict[Word, None] = {}
        for w in words:
            n = self._node(w, create=False)
            if n is None or self.out[n] is None:
                todo[tuple(w)] = None
        if not todo:
            return
        asked = list(todo)
        for w, ans in zip(asked, self.oracle.member_many(asked)):
            n = self._node(w)
            assert n is not None
            if self.out[n] is None:
                self.out[n] = ans
                self._on_answer(w, ans)

    def _on_answer(self, w: Word, ans: bool) -> None:
        """Incremental apartness: node(w[:i]) gained the answer ``ans`` at suffix w[i:]."""
        n = 0
        path = [0]
        for a in w:
            n = self.children[n][a]
            path.append(n)
        for i, x in enumerate(path):
            y = w[i:]
            if x in self.cand:
                for b in list(self.cand[x]):
                    m = self._walk(b, y)
                    if m is not None and self.out[m] is not None and self.out[m] != ans:
                        self._drop(x, b)
            elif x in self.basis_set:
                for f in list(self.rev[x]):
                    m = self._walk(f, y)
                    if m is not None and self.out[m] is not None and self.out[m] != ans:
                        self._drop(f, x)

    def _drop(self, f: int, b: int) -> None:
        self.cand[f].discard(b)
        self.rev[b].discard(f)
        self._hyp = None

    def _apart(self, p: int, q: int) -> Word | None:
        """A shortest witness of ``p # q`` in the tree, or None."""
        seen = {(p, q)}
        todo = deque([(p, q)])
        while todo:
            x, y = todo.popleft()
            ox, oy = self.out[x], self.out[y]
            if ox is not None and oy is not None and ox != oy:
                return self.access[x][len(self.access[p]):]
            cx, cy = self.children[x], self.children[y]
            for a in self.alphabet:
                u, v = cx.get(a), cy.get(a)
                if u is not None and v is not None and (u, v) not in seen:
                    seen.add((u, v))
                    todo.append((u, v))
        return None

    def _basis_witness(self, b1: int, b2: int) -> Word:
        key = (min(b1, b2), max(b1, b2))
        w = self._witness.get(key)
        if w is None:
            w = self._apart(*key)
            if w is None:
                raise LearningError("lsharp: two basis states are not apart (internal invariant)")
            self._witness[key] = w
        return w

    def _add_frontier(self, f: int) -> None:
        self.cand[f] = set()
        for b in self.basis:
            if self._apart(f, b) is None:
                self.cand[f].add(b)
                self.rev[b].add(f)

    def _promote(self, f: int) -> None:
        self._check_size(len(self.basis) + 1)
        for b in self.cand.pop(f):
            self.rev[b].discard(f)
        self.basis.append(f)
        self.basis_set.add(f)
        self.rev[f] = set()
        for g in self.cand:
            if self._apart(g, f) is None:
                self.cand[g].add(f)
                self.rev[f].add(g)
        for c in self.children[f].values():
            if c not in self.basis_set and c not in self.cand:
                self._add_frontier(c)
        self._hyp = None

    # ------------------------------------------------------------ main loop

    def _extend(self) -> None:
        missing = []
        for b in self.basis:
            if self.out[b] is None:
                missing.append(self.access[b])
            for a in self.alphabet:
                c = self.children[b].get(a)
                if c is None or self.out[c] is None:
                    missing.append(self.access[b] + (a,))
        self._ask(missing)
        for b in self.basis:
            for c in self.children[b].values():
                if c not in self.basis_set and c not in self.cand:
                    self._add_frontier(c)

    def hypothesis(self) -> DFA:
        while self._hyp is None:
            self._extend()
            isolated = [f for f, cs in self.cand.items() if not cs]
            if isolated:
                self._promote(min(isolated, key=lambda f: (len(self.access[f]), f)))
                continue
            ambiguous = [f for f, cs in self.cand.items() if len(cs) > 1]
            if ambiguous:
                self._separate(ambiguous)
                continue
            hyp = self._build()
            conflict = self._conflict(hyp)
            if conflict is None:
                self._hyp = hyp
            else:
                self._process(hyp, conflict)
        return self._hyp

    def _separate(self, ambiguous: list[int]) -> None:
        if self.separation == "ads":
            many = [f for f in ambiguous if len(self.cand[f]) > 2]
            for f in many:
                self._separate_adaptive(f)
            ambiguous = [f for f in ambiguous if f not in many and len(self.cand.get(f, ())) > 1]
            if not ambiguous:
                return
        pairs = []
        for f in ambiguous:
            b1, b2 = sorted(self.cand[f])[:2]
            pairs.append((f, b1, b2))
        self._ask([self.access[f] + self._basis_witness(b1, b2) for f, b1, b2 in pairs])
        for f, b1, b2 in pairs:
            if f in self.cand and b1 in self.cand[f] and b2 in self.cand[f]:
                # The witness separates b1 from b2, so f is apart from one of them.
                for b in (b1, b2):
                    if self._apart(f, b) is not None:
                        self._drop(f, b)
                if b1 in self.cand[f] and b2 in self.cand[f]:
                    raise LearningError("lsharp: separation failed (internal invariant)")

    def _separate_adaptive(self, f: int) -> None:
        """An adaptive distinguishing walk for all candidates of ``f`` at once (as
        L#'s ADS rule, built greedily): at each step the letter that splits the
        remaining candidates most evenly by their known answers is asked from
        ``f``; candidates that answered otherwise are apart and drop out."""
        start = len(self.cand[f])
        track = {b: b for b in self.cand[f]}  # candidate -> its node at the current depth
        node: int = f
        while len(track) > 1:
            best: tuple[int, str] | None = None
            for a in self.alphabet:
                ones = zeros = 0
                for m in track.values():
                    c = self.children[m].get(a)
                    o = self.out[c] if c is not None else None
                    if o is True:
                        ones += 1
                    elif o is False:
                        zeros += 1
                if ones and zeros and (best is None or min(ones, zeros) > best[0]):
                    best = (min(ones, zeros), a)
            if best is None:
                break
            a = best[1]
            w = self.access[node] + (a,)
            self._ask([w])
            nxt = self._node(w)
            assert nxt is not None
            node = nxt
            o = self.out[node]
            track = {b: self.children[m][a] for b, m in track.items()
                     if self.children[m].get(a) is not None and self.out[self.children[m][a]] == o}
        if f in self.cand and len(self.cand[f]) >= start:
            # No letter splits the candidates one step deep: fall back to a witness.
            b1, b2 = sorted(self.cand[f])[:2]
            self._ask([self.access[f] + self._basis_witness(b1, b2)])
            for b in (b1, b2):
                if self._apart(f, b) is not None:
                    self._drop(f, b)
            if len(self.cand[f]) >= start:
                raise LearningError("lsharp: separation failed (internal invariant)")

    def _build(self) -> DFA:
        index = {b: i for i, b in enumerate(self.basis)}
        trans = {}
        for b in self.basis:
            for a in self.alphabet:
                c = self.children[b][a]
                trans[(index[b], a)] = index[c] if c in index else index[next(iter(self.cand[c]))]
        acc = frozenset(index[b] for b in self.basis if self.out[b])
        return DFA(self.alphabet, len(self.basis), 0, acc, trans)

    def _conflict(self, hyp: DFA) -> Word | None:
        """The shortest word with an answer in the tree that ``hyp`` contradicts."""
        state = [0] * len(self.out)
        best: int | None = None
        for n in range(1, len(self.out)):
            p = self.parent[n]
            a = self.access[n][-1]
            s = state[n] = hyp.transitions[(state[p], a)]
            o = self.out[n]
            if o is not None and o != (s in hyp.accepting) and (best is None or len(self.access[n]) < len(self.access[best])):
                best = n
        if self.out[0] is not None and self.out[0] != (0 in hyp.accepting):
            best = 0
        return None if best is None else self.access[best]

    def _process(self, hyp: DFA, sigma: Word) -> None:
        """``sigma`` has a known answer that ``hyp`` contradicts: remove a candidate."""
        basis = self.basis
        n, k = 0, 0
        while n in self.basis_set and k < len(sigma):
            n = self.children[n][sigma[k]]
            k += 1
        if n in self.basis_set:
            raise LearningError(f"lsharp: conflict {list(sigma)} ends in the basis (internal invariant)")
        answer = self.out[self._node(sigma)]  # type: ignore[index]
        states = [hyp.initial]
        for a in sigma:
            states.append(hyp.transitions[(states[-1], a)])

        def beta_word(j: int) -> Word:
            return self.access[basis[states[j]]] + sigma[j:]

        def beta(j: int) -> bool:
            w = beta_word(j)
            self._ask([w])
            o = self.out[self._node(w)]  # type: ignore[index]
            assert o is not None
            return o

        f = n
        if beta(k) != answer:
            # The frontier node reached by sigma[:k] is apart from its candidate.
            self._drop(f, basis[states[k]])
            return
        lo, hi = k, len(sigma)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if beta(mid) == answer:
                lo = mid
            else:
                hi = mid
        c = self.children[basis[states[lo]]][sigma[lo]]
        target = basis[states[hi]]
        if c in self.basis_set:
            raise LearningError(f"lsharp: counterexample {list(sigma)} separates nothing; "
                                "the teacher's answers contradict each other")
        # c was mapped to target by hyp; the queries above may already have dropped it.
        self._drop(c, target)

    # ------------------------------------------------------- counterexamples

    def refine(self, counterexample: Word) -> None:
        ce = tuple(counterexample)
        hyp = self.hypothesis()
        self._ask([ce])
        answer = self.out[self._node(ce)]  # type: ignore[index]
        if hyp.accepts(ce) == answer:
            raise LearningError(f"lsharp: {list(ce)} is no counterexample to the hypothesis")
        self._hyp = None
        self._process(hyp, ce)

    # ------------------------------------------------------------- snapshots

    def snapshot(self) -> _Snapshot:
        return _Snapshot(tuple(tuple(c.items()) for c in self.children), tuple(self.out), tuple(self.access),
                         tuple(self.parent), tuple(self.basis), {f: frozenset(c) for f, c in self.cand.items()})

    def restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, _Snapshot)
        self.children = [dict(c) for c in snapshot.children]
        self.out = list(snapshot.out)
        self.access = list(snapshot.access)
        self.parent = list(snapshot.parent)
        self.basis = list(snapshot.basis)
        self.basis_set = set(self.basis)
        self.cand = {f: set(c) for f, c in snapshot.cand.items()}
        self.rev = {b: set() for b in self.basis}
        for f, cs in self.cand.items():
            for b in cs:
                self.rev[b].add(f)
        self._witness = {}
        self._hyp = None
