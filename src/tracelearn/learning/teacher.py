"""What a learner may ask: the teacher protocol, its optional parts, a DFA teacher.

A teacher must answer membership (``member``) and equivalence (``equivalent``)
queries. It may also offer, and the query layer uses them when present:

- ``precheck(word) -> bool | None``: a cheap, solver-free answer, or None;
- ``find_member(words) -> word | None``: one word of the batch that is in the
  language, or None if none is (a solver answers it with one call over the
  disjunction of the words; lazy learning fixes wrong ``False`` guesses with it);
- ``find_non_member(words) -> word | None``: the same for non-members (fixes wrong
  ``True`` guesses);
- ``member_many(words) -> list[bool]``: several membership queries at once;
- ``known_counterexample(hypothesis) -> word | None``: a word the hypothesis gets
  wrong among those the teacher has already seen answered (e.g. the vectors an earlier
  equivalence query sampled), or None: no equivalence query is posed for it;
- ``prefix_closed = True``: the language is known to be prefix-closed (a program's
  feasible decision vectors): the learner deduces what its answers imply (a prefix
  of a member is one, an extension of a non-member is none) and does not ask;
- ``shortest_non_member_prefix(word) -> word``: for a prefix-closed teacher, the
  shortest prefix of ``word`` (answered ``False``) that is not in the language
  either: every extension of it is answered with no query.

``TeacherBase`` gives the defaults (no precheck; batches answered by looping
``member``); the module-level functions fall back to the same defaults for a
teacher that does not inherit from it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..automata.dfa import DFA

Word = tuple[str, ...]


@runtime_checkable
class Teacher(Protocol):
    alphabet: tuple[str, ...]

    def member(self, word: Word) -> bool: ...

    def equivalent(self, hypothesis: DFA) -> Word | None:
        """None if the hypothesis is right, else a word it classifies wrongly."""
        ...


class TeacherBase:
    """Default implementations of the optional teacher queries."""

    alphabet: tuple[str, ...]
    prefix_closed: bool = False

    def member(self, word: Word) -> bool:
        raise TypeError(f"{type(self).__name__} must implement member()")

    def precheck(self, word: Word) -> bool | None:
        return None

    def find_member(self, words: Sequence[Word]) -> Word | None:
        for w in words:
            if self.member(w):
                return w
        return None

    def find_non_member(self, words: Sequence[Word]) -> Word | None:
        for w in words:
            if not self.member(w):
                return w
        return None

    def member_many(self, words: Sequence[Word]) -> list[bool]:
        return [self.member(w) for w in words]

    def known_counterexample(self, hypothesis: DFA) -> Word | None:
        return None


def prefix_closed(teacher: Teacher) -> bool:
    return bool(getattr(teacher, "prefix_closed", False))


def shortest_non_member_prefix(teacher: Teacher, word: Word) -> Word:
    f = getattr(teacher, "shortest_non_member_prefix", None)
    return tuple(f(word)) if f is not None else word


def precheck(teacher: Teacher, word: Word) -> bool | None:
    f = getattr(teacher, "precheck", None)
    return f(word) if f is not None else None


def find_member(teacher: Teacher, words: Sequence[Word]) -> Word | None:
    f = getattr(teacher, "find_member", None)
    if f is not None:
        return f(list(words))
    return TeacherBase.find_member(teacher, words)  # type: ignore[arg-type]


def find_non_member(teacher: Teacher, words: Sequence[Word]) -> Word | None:
    f = getattr(teacher, "find_non_member", None)
    if f is not None:
        return f(list(words))
    return TeacherBase.find_non_member(teacher, words)  # type: ignore[arg-type]


def known_counterexample(teacher: Teacher, hypothesis: DFA) -> Word | None:
    f = getattr(teacher, "known_counterexample", None)
    return f(hypothesis) if f is not None else None


def member_many(teacher: Teacher, words: Sequence[Word]) -> list[bool]:
    f = getattr(teacher, "member_many", None)
    if f is not None:
        return list(f(list(words)))
    return [teacher.member(w) for w in words]


@dataclass
class DFATeacherStats:
    member: int = 0
    equivalent: int = 0
    find_member: int = 0
    find_non_member: int = 0


@dataclass
class DFATeacher(TeacherBase):
    """A teacher that knows the target DFA (tests, benchmarks).

    ``counterexamples="shortest"`` returns the shortest distinguishing word (least
    in alphabet order); ``"random"`` a random one of length up to about
    ``random_length`` (a solver's counterexamples are arbitrary, often long),
    drawn with ``seed``."""
    target: DFA
    counterexamples: str = "shortest"
    seed: int = 0
    random_length: int = 30
    alphabet: tuple[str, ...] = ()
    stats: DFATeacherStats = field(default_factory=DFATeacherStats)

    def __post_init__(self) -> None:
        if not self.alphabet:
            self.alphabet = self.target.alphabet
        if self.counterexamples not in ("shortest", "random"):
            raise ValueError(f"unknown counterexample strategy {self.counterexamples!r}")
        self._rng = random.Random(self.seed)
        self._known: dict[Word, bool] = {}  # batch queries rescan their batch: remember runs

    def _accepts(self, word: Word) -> bool:
        ans = self._known.get(word)
        if ans is None:
            ans = self._known[word] = self.target.accepts(word)
        return ans

    def member(self, word: Word) -> bool:
        self.stats.member += 1
        return self.target.accepts(word)

    def find_member(self, words: Sequence[Word]) -> Word | None:
        self.stats.find_member += 1
        return next((w for w in words if self._accepts(w)), None)

    def find_non_member(self, words: Sequence[Word]) -> Word | None:
        self.stats.find_non_member += 1
        return next((w for w in words if not self._accepts(w)), None)

    def equivalent(self, hypothesis: DFA) -> Word | None:
        self.stats.equivalent += 1
        if self.counterexamples == "shortest":
            return hypothesis.equivalence_witness(self.target)
        return _random_witness(hypothesis, self.target, self._rng, self.random_length)


def _random_witness(h: DFA, t: DFA, rng: random.Random, length: int) -> Word | None:
    """A random distinguishing word: random letters for a random number of steps,
    then the shortest way from there to a disagreement (the walk is halved while
    no disagreement is reachable from its end)."""
    alpha = h.alphabet + tuple(a for a in t.alphabet if a not in set(h.alphabet))
    walk = tuple(rng.choice(alpha) for _ in range(rng.randint(0, length))) if alpha else ()
    while True:
        rest = h.equivalence_witness(t, starts=(h.run(walk), t.run(walk)))
        if rest is not None:
            return walk + rest
        if not walk:
            return None
        walk = walk[:len(walk) // 2]
