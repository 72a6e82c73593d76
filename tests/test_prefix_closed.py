"""What a prefix-closed language's answers imply (the PAC teacher answers membership
from them before the solver): checked against the definition on random languages."""

from __future__ import annotations

import itertools
import random

import pytest

from tracelearn.automata.dfa import DFA
from tracelearn.learning.learner import LearningError
from tracelearn.learning.prefix_closed import PrefixClosedAnswers

WORDS = [w for n in range(7) for w in itertools.product("01", repeat=n)]


def _language(rng: random.Random) -> set[tuple[str, ...]]:
    """A random prefix-closed language: the prefixes of a few random words."""
    lang: set[tuple[str, ...]] = set()
    for _ in range(rng.randint(0, 5)):
        w = tuple(rng.choice("01") for _ in range(rng.randint(0, 6)))
        lang.update(w[:k] for k in range(len(w) + 1))
    return lang


@pytest.mark.parametrize("seed", range(40))
def test_answers_are_what_the_known_words_imply(seed):
    rng = random.Random(seed)
    lang = _language(rng)
    known = PrefixClosedAnswers()
    told: list[tuple[tuple[str, ...], bool]] = []
    for w in rng.sample(WORDS, 25):
        known.add(w, w in lang)
        told.append((w, w in lang))
        for v in WORDS:
            implied = None
            if any(m and len(u) >= len(v) and u[:len(v)] == v for u, m in told):
                implied = True
            elif any(not m and len(u) <= len(v) and v[:len(u)] == u for u, m in told):
                implied = False
            assert known.answer(v) == implied, (sorted(lang), told, v)
    kept = known._members  # only the maximal members are kept (memory: runs are long)
    assert not any(a != b and b.startswith(a) for a in kept for b in kept)


def test_an_answer_against_what_is_implied_is_refused():
    known = PrefixClosedAnswers()
    known.add(("1", "0", "1"), True)
    with pytest.raises(LearningError, match="prefix-closed"):
        known.add(("1", "0"), False)
    known.add(("0",), False)
    with pytest.raises(LearningError, match="prefix-closed"):
        known.add(("0", "1"), True)
    assert known.answer("10") is True and known.answer("011") is False and known.answer("11") is None


@pytest.mark.parametrize("seed", range(30))
def test_shortest_rejected_prefix_is_the_first_rejected_one(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 5)
    trans = {(q, a): rng.randrange(n) for q in range(n) for a in "01" if rng.random() < 0.9}
    dfa = DFA(("0", "1"), n, 0, frozenset(q for q in range(n) if rng.random() < 0.7), trans)
    for w in WORDS:
        first = next((k for k in range(len(w) + 1) if not dfa.accepts(w[:k])), None)
        assert dfa.shortest_rejected_prefix(w) == first
