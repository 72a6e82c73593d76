"""DFA operations against brute force over all short words."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from tracelearn.automata import DFA

MAX_LEN = 6


def random_dfa(rng: random.Random, letters: tuple[str, ...] = ("a", "b", "c"), max_states: int = 6,
               density: float = 0.8) -> DFA:
    """A random partial DFA over a random non-empty sub-alphabet of ``letters``."""
    alpha = tuple(a for a in letters if rng.random() < 0.8) or letters[:1]
    n = rng.randint(1, max_states)
    trans = {(s, a): rng.randrange(n) for s in range(n) for a in alpha if rng.random() < density}
    acc = frozenset(q for q in range(n) if rng.random() < 0.4)
    return DFA(alpha, n, rng.randrange(n), acc, trans)


def all_words(alphabet, max_len=MAX_LEN):
    for n in range(max_len + 1):
        yield from itertools.product(alphabet, repeat=n)


def language(d: DFA, alphabet=None, max_len=MAX_LEN) -> set:
    return {w for w in all_words(alphabet or d.alphabet, max_len) if d.accepts(w)}


def shortlex_key(alphabet):
    pos = {a: i for i, a in enumerate(alphabet)}
    return lambda w: (len(w), [pos[a] for a in w])


def myhill_nerode_classes(d: DFA) -> int:
    """Number of states of the minimal complete DFA, by brute force: reachable states
    grouped by their acceptance of every word up to length n (enough to tell
    apart any two states of an n-state DFA)."""
    c = d.complete()
    probes = list(all_words(c.alphabet, c.num_states))
    sigs = set()
    for q in c.reachable_states():
        sigs.add(tuple(c.run(w, start=q) in c.accepting for w in probes))
    return len(sigs)


SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_unary_operations_preserve_or_flip_the_language(seed):
    rng = random.Random(seed)
    d = random_dfa(rng)
    lang = language(d)
    for same in (d.complete(), d.reachable(), d.remove_sink(), d.trim(), d.minimize(), d.canonical(),
                 DFA.from_dict(json.loads(json.dumps(d.to_dict())))):
        assert language(same, d.alphabet) == lang
    assert language(d.complement()) == set(all_words(d.alphabet)) - lang
    assert d.complete().is_complete() and d.minimize().is_complete()
    assert d.is_empty() == (d.shortest_word() is None)
    if lang:
        assert not d.is_empty()


@pytest.mark.parametrize("seed", SEEDS)
def test_products_over_differing_alphabets(seed):
    rng = random.Random(1000 + seed)
    a, b = random_dfa(rng), random_dfa(rng)
    alpha = a.alphabet + tuple(x for x in b.alphabet if x not in a.alphabet)
    la, lb = language(a, alpha), language(b, alpha)
    assert language(a.intersection(b), alpha) == la & lb
    assert language(a.union(b), alpha) == la | lb
    assert language(a.difference(b), alpha) == la - lb
    assert language(a.symmetric_difference(b), alpha) == la ^ lb
    assert a.union(b).alphabet == alpha


@pytest.mark.parametrize("seed", SEEDS)
def test_shortest_word_and_witness_are_shortlex_least(seed):
    rng = random.Random(2000 + seed)
    a, b = random_dfa(rng), random_dfa(rng)
    key = shortlex_key(a.alphabet)
    la = language(a)
    expected = min(la, key=key) if la else None
    got = a.shortest_word()
    if expected is not None:
        assert got == expected
    elif got is not None:  # an accepted word longer than MAX_LEN
        assert len(got) > MAX_LEN and a.accepts(got)
    alpha = a.alphabet + tuple(x for x in b.alphabet if x not in a.alphabet)
    diff = language(a, alpha) ^ language(b, alpha)
    w = a.equivalence_witness(b)
    if diff:
        assert w == min(diff, key=shortlex_key(alpha))
    else:
        assert w is None or len(w) > MAX_LEN
    if w is not None:
        assert a.accepts(w) != b.accepts(w)
    assert a.equivalence_witness(a.minimize()) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_words_lists_the_language_in_shortlex_order(seed):
    rng = random.Random(3000 + seed)
    d = random_dfa(rng)
    got = d.words(5)
    assert got == sorted(language(d, max_len=5), key=shortlex_key(d.alphabet))


@pytest.mark.parametrize("seed", SEEDS)
def test_agree_upto_is_equality_of_short_languages(seed):
    rng = random.Random(3500 + seed)
    a, b = random_dfa(rng, max_states=3), random_dfa(rng, max_states=3)
    alpha = tuple(dict.fromkeys(a.alphabet + b.alphabet))
    for n in range(MAX_LEN + 1):
        assert a.agree_upto(b, n) == (language(a, alpha, n) == language(b, alpha, n)), n


@pytest.mark.parametrize("seed", SEEDS)
def test_minimize_has_myhill_nerode_many_states(seed):
    rng = random.Random(4000 + seed)
    d = random_dfa(rng)
    m = d.minimize()
    assert m.num_states == myhill_nerode_classes(d)
    assert m.initial == 0
    assert m.minimize() == m


def scrambled_equivalent(d: DFA, rng: random.Random) -> DFA:
    """A bigger DFA with the same language: two copies of ``d`` with edges crossing
    between them at random, states renumbered at random."""
    n = d.num_states
    perm = list(range(2 * n))
    rng.shuffle(perm)
    trans = {}
    for (s, a), t in d.transitions.items():
        for copy in (0, 1):
            trans[(perm[s + copy * n], a)] = perm[t + rng.choice((0, n))]
    acc = {perm[q] for q in d.accepting} | {perm[q + n] for q in d.accepting}
    return DFA(d.alphabet, 2 * n, perm[d.initial + rng.choice((0, n))], frozenset(acc), trans)


@pytest.mark.parametrize("seed", SEEDS)
def test_minimize_is_canonical(seed):
    rng = random.Random(5000 + seed)
    d = random_dfa(rng)
    other = scrambled_equivalent(d, rng)
    assert language(other) == language(d)
    assert other.minimize() == d.minimize()
    assert hash(other.minimize()) == hash(d.minimize())


def test_minimize_matches_aalpy_on_bigger_automata():
    pytest.importorskip("aalpy")
    from aalpy.automata import Dfa, DfaState

    rng = random.Random(7)
    for _ in range(10):
        n = rng.randint(20, 60)
        alpha = ("x", "y", "z")
        trans = {(s, a): rng.randrange(n) for s in range(n) for a in alpha}
        d = DFA(alpha, n, 0, frozenset(q for q in range(n) if rng.random() < 0.3), trans).reachable()
        states = [DfaState(f"s{i}", i in d.accepting) for i in d.states]
        for (s, a), t in d.transitions.items():
            states[s].transitions[a] = states[t]
        ref = Dfa(states[d.initial], states)
        ref.minimize()  # merges equivalent states in place
        assert d.minimize().num_states == len(ref.states)


def test_empty_and_universal():
    e = DFA.empty(("a", "b"))
    u = DFA.universal(("a", "b"))
    assert e.is_empty() and e.shortest_word() is None and e.words(3) == []
    assert u.shortest_word() == () and len(u.words(2)) == 7
    assert e.complement().minimize() == u.minimize()
    assert e.equivalence_witness(u) == ()
    assert e.minimize().num_states == 1 and u.minimize().num_states == 1


def test_partial_runs_and_letters_outside_the_alphabet():
    d = DFA(("a", "b"), 2, 0, frozenset({1}), {(0, "a"): 1})
    assert d.run(("a",)) == 1 and d.run(("b",)) is None and d.run(("a", "a")) is None
    assert d.accepts(("a",)) and not d.accepts(("c",)) and not d.accepts(())
    assert not d.is_complete() and d.complete().num_states == 3


def test_remove_sink_and_edges_from_accepting():
    # 0 -f-> 1 -assert-> 2 (accepting) -x-> 3 (dead sink), 0 -g-> 3
    d = DFA(("f", "g", "assert", "x"), 4, 0, frozenset({2}),
            {(0, "f"): 1, (1, "assert"): 2, (2, "x"): 3, (0, "g"): 3, (3, "x"): 3})
    assert not d.has_edges_from_accepting()  # only into the dead sink
    t = d.remove_sink()
    assert t.num_states == 3 and len(t.transitions) == 2
    assert t.words(5) == [("f", "assert")]
    back = DFA(("f", "assert"), 3, 0, frozenset({2}), {(0, "f"): 1, (1, "assert"): 2, (2, "f"): 1})
    assert back.has_edges_from_accepting()


def test_trim_keeps_the_initial_state_of_an_empty_language():
    d = DFA(("a",), 3, 1, frozenset({2}), {(1, "a"): 0, (0, "a"): 0})
    t = d.trim()
    assert t.num_states == 1 and t.initial == 0 and not t.transitions and t.is_empty()


def test_json_round_trip_and_state_lists():
    d = DFA(("a", "b"), 3, 2, frozenset({0}), {(2, "a"): 0, (0, "b"): 1})
    data = json.loads(d.to_json())
    assert data["states"] == 3 and {"from": 2, "letter": "a", "to": 0} in data["transitions"]
    assert DFA.from_json(d.to_json()) == d
    listed = {"alphabet": ["a"], "states": [10, 20], "initial": 20, "accepting": [10],
              "transitions": [{"from": 20, "letter": "a", "to": 10}]}
    e = DFA.from_dict(listed)
    assert e.initial == 1 and e.accepting == {0} and e.accepts(("a",))


def test_invalid_automata_are_rejected():
    with pytest.raises(ValueError):
        DFA(("a", "a"), 1, 0, frozenset(), {})
    with pytest.raises(ValueError):
        DFA(("a",), 1, 0, frozenset(), {(0, "b"): 0})
    with pytest.raises(ValueError):
        DFA(("a",), 1, 0, frozenset(), {(0, "a"): 1})
    with pytest.raises(ValueError):
        DFA(("a",), 1, 1, frozenset(), {})


def test_from_words_builds_a_prefix_tree():
    words = [("a", "b"), ("a",), ("b", "b", "a")]
    d = DFA.from_words(("a", "b"), words)
    assert language(d) == set(words)
