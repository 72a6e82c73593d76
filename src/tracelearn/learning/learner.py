"""The interface every learner offers, and the error it raises.

A learner is driven step by step: ``hypothesis()`` builds a conjecture (asking
membership queries), ``refine(counterexample)`` processes a word the conjecture
classifies wrongly. ``snapshot()`` / ``restore()`` save and reload the whole
learner state (plain data, safe to deep-copy), so lazy learning can go back to
the last conjecture. ``learn()`` is the plain driver loop for callers that do
not need the query layer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Protocol

from ..automata.dfa import DFA

Word = tuple[str, ...]


class LearningError(Exception):
    """The teacher's answers contradict each other, or a limit was exceeded; the
    learner stops instead of looping."""


class MembershipOracle(Protocol):
    def member(self, word: Word) -> bool: ...

    def member_many(self, words: Sequence[Word]) -> list[bool]: ...


class Learner(ABC):
    """Base of the DFA learners. ``max_states`` bounds the hypothesis size: more
    states than that can only come from an inconsistent or non-regular teacher."""

    name: str = "learner"

    def __init__(self, alphabet: Sequence[str], oracle: MembershipOracle, *, max_states: int = 10_000) -> None:
        if len(set(alphabet)) != len(alphabet):
            raise ValueError(f"duplicate letters in alphabet {list(alphabet)}")
        self.alphabet: tuple[str, ...] = tuple(alphabet)
        self.oracle = oracle
        self.max_states = max_states

    @abstractmethod
    def hypothesis(self) -> DFA:
        """The current conjecture: a complete DFA over the alphabet, consistent
        with every answer the learner has stored."""

    @abstractmethod
    def refine(self, counterexample: Word) -> None:
        """Process a word the current hypothesis classifies wrongly (its correct
        answer is obtained through the oracle, normally from the cache)."""

    @abstractmethod
    def snapshot(self) -> object:
        """The learner state as plain data (no reference to the oracle)."""

    @abstractmethod
    def restore(self, snapshot: object) -> None:
        """Go back to a state returned by ``snapshot``."""

    def _check_size(self, n: int) -> None:
        if n > self.max_states:
            raise LearningError(f"{self.name}: more than {self.max_states} states; "
                                "the teacher is inconsistent or the language is not regular")

    def _checked_answer(self, ce: Word) -> tuple[DFA, bool]:
        """The current hypothesis and the oracle's answer for ``ce``, which must
        disagree: a refinement with a non-counterexample would loop or corrupt."""
        hyp = self.hypothesis()
        answer = self.oracle.member(ce)
        if hyp.accepts(ce) == answer:
            raise LearningError(f"{self.name}: {list(ce)} is no counterexample to the hypothesis")
        return hyp, answer

    def learn(self, equivalent: Callable[[DFA], Word | None], max_rounds: int = 100_000) -> DFA:
        """Conjecture, ask ``equivalent``, refine (reusing the counterexample while it
        still distinguishes), until there is no counterexample."""
        hyp = self.hypothesis()
        for _ in range(max_rounds):
            ce = equivalent(hyp)
            if ce is None:
                return hyp
            ce = tuple(ce)
            hyp, answer = self._checked_answer(ce)
            while hyp.accepts(ce) != answer:
                before = hyp.num_states
                self.refine(ce)
                hyp = self.hypothesis()
                if hyp.num_states <= before and hyp.accepts(ce) != answer:
                    raise LearningError(f"{self.name}: counterexample {list(ce)} makes no progress")
        raise LearningError(f"{self.name}: no correct hypothesis after {max_rounds} rounds")


def rs_split(hyp: DFA, ce: Word, answer: bool, access: Callable[[int], Word],
             member: Callable[[Word], bool]) -> tuple[list[int], int]:
    """Rivest-Schapire counterexample analysis: with alpha(i) = member(access(state
    after ce[:i]) + ce[i:]), alpha(0) == answer and alpha(len(ce)) != answer; binary
    search for i with alpha(i) == answer != alpha(i + 1). Returns the states along
    ``ce`` and that i + 1 (so ce[i + 1:] separates two access words)."""
    states = [hyp.initial]
    for a in ce:
        states.append(hyp.transitions[(states[-1], a)])
    lo, hi = 0, len(ce)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if member(access(states[mid]) + ce[mid:]) == answer:
            lo = mid
        else:
            hi = mid
    return states, hi
