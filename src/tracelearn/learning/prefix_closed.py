"""What the answers so far say of a *prefix-closed* language (a program's feasible
decision vectors): every prefix of a member is a member, every extension of a
non-member is none. A membership query these settle needs no teacher.

Members are kept as the maximal words known, sorted (a word is implied when it is a
prefix of the next one in order); non-members as the set of words known, looked up
by the lengths that occur (a word is implied when one of its prefixes is there)."""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass, field

from .learner import LearningError


@dataclass
class PrefixClosedAnswers:
    _members: list[str] = field(default_factory=list)  # sorted, none a prefix of another
    _non_members: set[str] = field(default_factory=set)
    _lengths: set[int] = field(default_factory=set)  # of the non-members

    @staticmethod
    def _key(word: Sequence[str] | str) -> str:
        return word if isinstance(word, str) else "".join(word)

    def answer(self, word: Sequence[str] | str) -> bool | None:
        w = self._key(word)
        for n in self._lengths:
            if n <= len(w) and w[:n] in self._non_members:
                return False
        i = bisect_left(self._members, w)
        if i < len(self._members) and self._members[i].startswith(w):
            return True
        return None

    def add(self, word: Sequence[str] | str, member: bool) -> None:
        """Record an answer; a contradiction with what is known raises LearningError
        (the teacher is inconsistent, or the language is not prefix-closed)."""
        w = self._key(word)
        known = self.answer(w)
        if known is not None:
            if known != member:
                raise LearningError(f"{w!r} answered {member}, but a known word implies {known} "
                                 "(the language must be prefix-closed)")
            return
        if not member:
            self._non_members.add(w)
            self._lengths.add(len(w))
            return
        i = bisect_left(self._members, w)
        # Members ``w`` extends are now implied by it: drop them (they sort just before it)
        j = i
        while j > 0 and w.startswith(self._members[j - 1]):
            j -= 1
        del self._members[j:i]
        insort(self._members, w, lo=j)
