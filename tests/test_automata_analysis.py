"""Post-processing (paper Sec. 7.2) on hand-made automata and against brute force."""

from __future__ import annotations

import itertools
import random

import pytest

from tracelearn.automata import DFA, dominating_edges, dominating_letters, dominator_states, doomed_states


def chain(*letters: str) -> DFA:
    n = len(letters) + 1
    return DFA(tuple(dict.fromkeys(letters)), n, 0, frozenset({n - 1}),
               {(i, a): i + 1 for i, a in enumerate(letters)})


def test_chain_everything_dominates_and_is_doomed():
    d = chain("a", "b", "assert")
    assert dominating_letters(d) == ("a", "b", "assert")
    assert dominating_edges(d) == ((0, "a", 1), (1, "b", 2), (2, "assert", 3))
    assert dominator_states(d) == {0, 1, 2, 3}
    assert doomed_states(d) == {0, 1, 2, 3}


def test_diamond():
    # 0 -a-> 1, 1 -b-> 2, 1 -c-> 3, 2 -assert-> 4, 3 -assert-> 4
    d = DFA(("a", "b", "c", "assert"), 5, 0, frozenset({4}),
            {(0, "a"): 1, (1, "b"): 2, (1, "c"): 3, (2, "assert"): 4, (3, "assert"): 4})
    assert dominating_letters(d) == ("a", "assert")
    assert dominating_edges(d) == ((0, "a", 1),)  # each assert edge alone can be avoided
    assert dominator_states(d) == {0, 1, 4}
    assert doomed_states(d) == {0, 1, 2, 3, 4}


def test_loop_that_avoids_acceptance_is_not_doomed():
    # Fig. 5c of the paper: g* f assert; the g-loop can be taken forever.
    d = DFA(("g", "f", "assert"), 3, 0, frozenset({2}), {(0, "g"): 0, (0, "f"): 1, (1, "assert"): 2})
    assert doomed_states(d) == {1, 2}
    assert dominating_letters(d) == ("f", "assert")
    assert dominator_states(d) == {0, 1, 2}


def test_cycle_of_non_accepting_states_with_exit():
    # 0 -a-> 1 -a-> 0 and 1 -b-> 2 (accepting): the 0-1 cycle may go on forever.
    d = DFA(("a", "b"), 3, 0, frozenset({2}), {(0, "a"): 1, (1, "a"): 0, (1, "b"): 2})
    assert doomed_states(d) == {2}
    # Without the way back, reaching 2 is inevitable from 0.
    e = DFA(("a", "b"), 3, 0, frozenset({2}), {(0, "a"): 1, (1, "b"): 2})
    assert doomed_states(e) == {0, 1, 2}


def test_edges_into_the_dead_sink_are_ignored():
    # 0 -f-> 1 -assert-> 2; 0 -g-> 3, 1 -g-> 3, 3 is a dead sink with a self-loop.
    d = DFA(("f", "g", "assert"), 4, 0, frozenset({2}),
            {(0, "f"): 1, (1, "assert"): 2, (0, "g"): 3, (1, "g"): 3, (3, "g"): 3, (3, "f"): 3})
    assert doomed_states(d) == {0, 1, 2}
    assert 3 not in doomed_states(d)
    assert dominating_letters(d) == ("f", "assert")


def test_empty_language_reports_nothing():
    d = DFA(("a",), 2, 0, frozenset(), {(0, "a"): 1})
    assert dominating_letters(d) == () and dominating_edges(d) == () and dominator_states(d) == set()
    assert doomed_states(d) == set()


def test_empty_word_accepted():
    d = DFA(("a",), 2, 0, frozenset({0, 1}), {(0, "a"): 1})
    assert dominating_letters(d) == () and dominating_edges(d) == ()
    assert dominator_states(d) == {0}


def _random_trimmed(rng: random.Random) -> DFA:
    alpha = ("a", "b", "c")
    n = rng.randint(2, 7)
    trans = {(s, a): rng.randrange(n) for s in range(n) for a in alpha if rng.random() < 0.5}
    return DFA(alpha, n, 0, frozenset(q for q in range(n) if rng.random() < 0.3), trans).trim()


def _accepted_paths(d: DFA, max_len: int = 7):
    """(word, states visited, edges used) of every accepted word up to max_len."""
    for n in range(max_len + 1):
        for w in itertools.product(d.alphabet, repeat=n):
            s = d.initial
            states, edges = [s], []
            for a in w:
                t = d.transitions.get((s, a))
                if t is None:
                    break
                edges.append((s, a, t))
                s = t
                states.append(s)
            else:
                if s in d.accepting:
                    yield w, set(states), set(edges)


@pytest.mark.parametrize("seed", range(40))
def test_domination_against_accepted_paths(seed):
    # Acyclic-enough random automata: every accepted word up to length 7 is a
    # witness; anything dominating must be on all of them.
    d = _random_trimmed(random.Random(seed))
    paths = list(_accepted_paths(d))
    if d.is_empty():
        assert not paths and dominating_letters(d) == ()
        return
    assert paths
    for a in dominating_letters(d):
        assert all(a in w for w, _, _ in paths)
    for e in dominating_edges(d):
        assert all(e in es for _, _, es in paths)
    for q in dominator_states(d):
        assert all(q in qs for _, qs, _ in paths)
    # Conversely, what is on every path up to a length beyond the number of states
    # (cycles add nothing new) dominates.
    every_letter = set.intersection(*(set(w) for w, _, _ in paths))
    every_state = set.intersection(*(qs for _, qs, _ in paths))
    every_edge = set.intersection(*(es for _, _, es in paths))
    if d.num_states <= 7:
        assert set(dominating_letters(d)) == every_letter
        assert dominator_states(d) == every_state
        assert set(dominating_edges(d)) == every_edge


@pytest.mark.parametrize("seed", range(40))
def test_doomed_states_definition(seed):
    d = _random_trimmed(random.Random(100 + seed))
    doomed = doomed_states(d)
    live = d.live_states()
    for q in d.states:
        succ = {t for (s, _), t in d.transitions.items() if s == q and t in live}
        if q in d.accepting:
            assert q in doomed
        elif q in doomed:
            assert succ and succ <= doomed
    # Least fixpoint: from a non-accepting doomed state every path reaches acceptance
    # within n steps (no acceptance-avoiding cycle).
    for q in doomed - d.accepting:
        frontier = {q}
        for _ in range(d.num_states):
            frontier = {t for s in frontier if s not in d.accepting
                        for (u, _), t in d.transitions.items() if u == s and t in live}
        assert not frontier
