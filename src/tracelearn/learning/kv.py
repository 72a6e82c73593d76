"""Kearns-Vazirani: a discrimination tree instead of a table.

Inner nodes hold a suffix (discriminator), leaves hold one state each, named by
its access word. A word is *sifted* from the root: at each inner node the
membership of ``word + discriminator`` picks a child. The root's discriminator is
the empty word, so the root separates accepting from rejecting states; when a
sift ends in the root's empty slot it has found a new state on its own.

Counterexample processing is Rivest-Schapire style: a binary search finds the
position where ``access(state after ce[:i]) + ce[i:]`` changes its answer; the
letter there leads to a new state, whose access word is ``access + letter``, and
the rest of the counterexample becomes the discriminator that splits the leaf it
was confused with. Only transitions into that leaf are re-sifted, from the new
inner node (one query each). One call to ``refine`` adds one state; the driver
calls it again while the same counterexample still distinguishes, so one
counterexample yields as many states as it can without new equivalence queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..automata.dfa import DFA
from .learner import Learner, LearningError, MembershipOracle, Word, rs_split


@dataclass(frozen=True)
class _Snapshot:
    disc: tuple[Word | None, ...]
    children: tuple[tuple[tuple[bool, int], ...], ...]
    leaf_state: tuple[int, ...]
    parent: tuple[int, ...]
    access: tuple[Word, ...]
    accepting: tuple[bool, ...]
    leaf_of: tuple[int, ...]
    trans: dict[tuple[int, str], int]


class KV(Learner):
    name = "kv"

    def __init__(self, alphabet: Sequence[str], oracle: MembershipOracle, *, max_states: int = 10_000) -> None:
        super().__init__(alphabet, oracle, max_states=max_states)
        # Tree nodes: an inner node has a discriminator, a leaf has ``disc is None``.
        self.disc: list[Word | None] = [()]
        self.children: list[dict[bool, int]] = [{}]
        self.leaf_state: list[int] = [-1]
        self.parent: list[int] = [-1]
        # States.
        self.access: list[Word] = []
        self.accepting: list[bool] = []
        self.leaf_of: list[int] = []
        self.trans: dict[tuple[int, str], int] = {}
        self._hyp: DFA | None = None

    # ------------------------------------------------------------------ tree

    def _new_node(self, disc: Word | None, parent: int, state: int = -1) -> int:
        self.disc.append(disc)
        self.children.append({})
        self.leaf_state.append(state)
        self.parent.append(parent)
        return len(self.disc) - 1

    def _new_state(self, word: Word, parent: int, side: bool) -> int:
        q = len(self.access)
        self._check_size(q + 1)
        self.access.append(word)
        self.accepting.append(self.oracle.member(word))
        leaf = self._new_node(None, parent, q)
        self.children[parent][side] = leaf
        self.leaf_of.append(leaf)
        return q

    def _sift(self, word: Word, node: int = 0) -> int:
        """The state ``word`` sifts to from ``node``, creating it at an empty slot."""
        while True:
            d = self.disc[node]
            if d is None:
                return self.leaf_state[node]
            side = self.oracle.member(word + d)
            nxt = self.children[node].get(side)
            if nxt is None:
                return self._new_state(word, node, side)
            node = nxt

    def hypothesis(self) -> DFA:
        if self._hyp is not None:
            return self._hyp
        if not self.access:
            self._sift(())
        q = 0
        # New states may appear while sifting: keep going until all have transitions.
        while q < len(self.access):
            for a in self.alphabet:
                if (q, a) not in self.trans:
                    self.trans[(q, a)] = self._sift(self.access[q] + (a,))
            q += 1
        acc = frozenset(i for i, x in enumerate(self.accepting) if x)
        self._hyp = DFA(self.alphabet, len(self.access), 0, acc, dict(self.trans))
        return self._hyp

    # ------------------------------------------------------- counterexamples

    def refine(self, counterexample: Word) -> None:
        ce = tuple(counterexample)
        hyp, answer = self._checked_answer(ce)
        states, hi = rs_split(hyp, ce, answer, lambda q: self.access[q], self.oracle.member)
        lo = hi - 1
        # access[states[lo]] + ce[lo] and access[states[hi]] disagree on ce[hi:].
        new_word = self.access[states[lo]] + (ce[lo],)
        old = states[hi]
        v = ce[hi:]
        side_old = self.oracle.member(self.access[old] + v)
        side_new = self.oracle.member(new_word + v)
        if side_old == side_new:
            raise LearningError(f"kv: counterexample {list(ce)} separates nothing; "
                                "the teacher's answers contradict each other")
        leaf = self.leaf_of[old]
        parent = self.parent[leaf]
        side = next(s for s, c in self.children[parent].items() if c == leaf)
        inner = self._new_node(v, parent)
        self.children[parent][side] = inner
        self.parent[leaf] = inner
        self.children[inner][side_old] = leaf
        self._new_state(new_word, inner, side_new)
        # Transitions into the split leaf may now belong to the new state.
        for key, t in list(self.trans.items()):
            if t == old:
                self.trans[key] = self._sift(self.access[key[0]] + (key[1],), inner)
        self._hyp = None

    # ------------------------------------------------------------- snapshots

    def snapshot(self) -> _Snapshot:
        return _Snapshot(tuple(self.disc), tuple(tuple(c.items()) for c in self.children), tuple(self.leaf_state),
                         tuple(self.parent), tuple(self.access), tuple(self.accepting), tuple(self.leaf_of),
                         dict(self.trans))

    def restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, _Snapshot)
        self.disc = list(snapshot.disc)
        self.children = [dict(c) for c in snapshot.children]
        self.leaf_state = list(snapshot.leaf_state)
        self.parent = list(snapshot.parent)
        self.access = list(snapshot.access)
        self.accepting = list(snapshot.accepting)
        self.leaf_of = list(snapshot.leaf_of)
        self.trans = dict(snapshot.trans)
        self._hyp = None
