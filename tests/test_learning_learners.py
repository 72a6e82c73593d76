"""L*, KV and L#, plain and lazy, on random targets from AALpy and on the paper's Fig. 5."""

from __future__ import annotations

import copy
import random

import pytest

from tracelearn.automata import DFA
from tracelearn.learning.nlstar import NLStar
from tracelearn.learning import (KV, LEARNERS, DFATeacher, LearningError, LSharp, LStar, QueryCache, QueryLayer,
                                 TeacherBase, learn)

aalpy_utils = pytest.importorskip("aalpy.utils")

LEARNER_NAMES = sorted(LEARNERS)
LAZY_LEARNERS = [n for n in LEARNER_NAMES if n != "nlstar"]  # NL* learns only with a teacher's answers
CLASSES = {"lstar": LStar, "kv": KV, "lsharp": LSharp}


def from_aalpy(a) -> DFA:
    ids = {s.state_id: i for i, s in enumerate(a.states)}
    alpha = tuple(a.get_input_alphabet())
    trans = {(ids[s.state_id], x): ids[s.transitions[x].state_id] for s in a.states for x in alpha}
    return DFA(alpha, len(a.states), ids[a.initial_state.state_id],
               frozenset(ids[s.state_id] for s in a.states if s.is_accepting), trans)


def random_target(n: int, k: int, seed: int, letters: list[str] | None = None) -> DFA:
    # AALpy draws from the global random module: seed it, then restore the state.
    state = random.getstate()
    random.seed(seed)
    try:
        alpha = letters or [f"e{i}" for i in range(k)]
        return from_aalpy(aalpy_utils.generate_random_dfa(n, alpha, num_accepting_states=max(1, n // 4)))
    finally:
        random.setstate(state)


CASES = [(5, 2, 0), (8, 3, 1), (12, 2, 2), (15, 4, 3), (20, 3, 4), (25, 5, 5), (30, 2, 6), (40, 3, 7), (40, 5, 8)]


def check_result(result, target: DFA) -> None:
    assert result.dfa == target.minimize()
    s = result.stats
    assert s.consistent()
    assert s.membership_asked == s.by_cache + s.by_precheck + s.by_guess + s.by_teacher
    assert s.equivalence == len(result.conjectures)
    assert result.conjectures[-1].equivalent(target)
    assert not result.cache.guessed()


@pytest.mark.parametrize("name", LEARNER_NAMES)
@pytest.mark.parametrize("n,k,seed", CASES)
def test_plain_learning_is_exact(name, n, k, seed):
    target = random_target(n, k, seed)
    for cex in ("shortest", "random"):
        teacher = DFATeacher(target, counterexamples=cex, seed=seed)
        r = learn(teacher, name)
        check_result(r, target)
        assert r.stats.by_guess == 0 and r.stats.restarts == 0
        # Every teacher answer is a distinct word: the cache never asks twice.
        assert r.stats.by_teacher == teacher.stats.member
        assert r.stats.equivalence == teacher.stats.equivalent


@pytest.mark.parametrize("name", LAZY_LEARNERS)
@pytest.mark.parametrize("n,k,seed", CASES[:7])
def test_lazy_learning_is_exact_with_often_wrong_guesses(name, n, k, seed):
    # A quarter of the states accept: guessing False is wrong for many queries,
    # and guessing True for most.
    target = random_target(n, k, seed)
    for guess in (False, True):
        teacher = DFATeacher(target, counterexamples="shortest")
        r = learn(teacher, name, lazy=True, guess=guess)
        check_result(r, target)
        s = r.stats
        assert s.by_teacher == 0 and s.by_guess > 0
        assert s.guesses_fixed > 0 and s.restarts > 0
        # Each wrong guess costs one batch query, plus one empty batch per check.
        assert s.batch_queries >= s.guesses_fixed
        assert s.batch_queries == teacher.stats.find_member + teacher.stats.find_non_member


@pytest.mark.parametrize("name", LAZY_LEARNERS)
def test_lazy_learning_with_long_random_counterexamples(name):
    target = random_target(10, 3, 11)
    teacher = DFATeacher(target, counterexamples="random", seed=5, random_length=12)
    check_result(learn(teacher, name, lazy=True, guess=False), target)


@pytest.mark.parametrize("name", LAZY_LEARNERS)
def test_lazy_with_good_guesses_restarts_rarely(name):
    # pv's setting: almost every word is rejected, so guessing False is almost always right.
    letters = ("g", "f", "assert")
    target = DFA(letters, 3, 0, frozenset({2}), {(0, "g"): 0, (0, "f"): 1, (1, "assert"): 2})
    plain = learn(DFATeacher(target), name)
    lazy = learn(DFATeacher(target), name, lazy=True, guess=False)
    assert lazy.dfa == plain.dfa == target.minimize()
    assert lazy.stats.guesses_fixed < lazy.stats.guesses_confirmed
    assert lazy.stats.batch_queries < plain.stats.by_teacher


FIG5C = DFA(("g", "f", "assert"), 3, 0, frozenset({2}), {(0, "g"): 0, (0, "f"): 1, (1, "assert"): 2})


def test_fig5_lstar_two_conjectures():
    """Paper Sec. 4: L* conjectures the empty automaton, gets f·assert as positive
    feedback, and its second conjecture (Fig. 5c, sink removed) is accepted.
    Maler-Pnueli processing does this on the exact target."""
    for lazy in (False, True):
        r = learn(DFATeacher(FIG5C), "lstar-mp", lazy=lazy)
        assert r.stats.equivalence == 2
        first, second = r.conjectures
        assert first.is_empty() and first.num_states == 1
        assert second.remove_sink().minimize() == FIG5C.minimize()
        assert r.dfa.remove_sink().num_states == 3


def test_fig5_rivest_schapire_needs_a_third_conjecture():
    # After f·assert, the single new column "assert" cannot tell the sink from the
    # initial state; the conjecture accepts assert·f·assert, the next counterexample.
    log = []
    r = learn(DFATeacher(FIG5C), "lstar", on_conjecture=lambda h, ce: log.append(ce))
    assert log == [("f", "assert"), ("assert", "f", "assert"), None]
    assert r.dfa == FIG5C.minimize()


@pytest.mark.parametrize("name", LEARNER_NAMES)
def test_arbitrary_string_letters(name):
    letters = ["Learn_Assert", "a b", "", "ünï", "x,y", "->"]
    target = random_target(12, len(letters), 21, letters)
    check_result(learn(DFATeacher(target, counterexamples="random", seed=1), name), target)


@pytest.mark.parametrize("name", LEARNER_NAMES)
def test_trivial_languages(name):
    for target in (DFA.empty(("a", "b")), DFA.universal(("a", "b")), DFA.empty(()),
                   DFA(("a",), 2, 0, frozenset({1}), {(0, "a"): 1})):
        r = learn(DFATeacher(target), name)
        assert r.dfa == target.minimize()


def test_kv_extracts_several_states_from_one_counterexample():
    target = random_target(40, 3, 7)
    r = learn(DFATeacher(target, counterexamples="random", seed=2, random_length=60), "kv")
    check_result(r, target)
    assert r.stats.counterexamples_reused > 0
    assert r.stats.equivalence < 40


@pytest.mark.parametrize("cls", [LStar, KV, LSharp])
def test_snapshot_restore(cls):
    target = random_target(20, 3, 9)
    teacher = DFATeacher(target, counterexamples="random", seed=4)
    oracle = QueryLayer(teacher)
    learner = cls(target.alphabet, oracle)
    h0 = learner.hypothesis()
    ce = teacher.equivalent(h0)
    snap = copy.deepcopy(learner.snapshot())
    learner.refine(ce)
    h1 = learner.hypothesis()
    assert h1 != h0
    learner.restore(snap)
    assert learner.hypothesis() == h0
    learner.refine(ce)
    assert learner.hypothesis() == h1  # the cache answers the same queries the same way
    # The snapshot stays valid after the learner moved on.
    final = learner.learn(teacher.equivalent)
    assert final.equivalent(target)
    learner.restore(snap)
    assert learner.hypothesis() == h0


@pytest.mark.parametrize("cls", [LStar, KV, LSharp])
def test_learner_driver_without_query_layer(cls):
    target = random_target(15, 2, 13)

    class Direct:
        def member(self, w):
            return target.accepts(w)

        def member_many(self, ws):
            return [target.accepts(w) for w in ws]

    learner = cls(target.alphabet, Direct())
    assert learner.learn(DFATeacher(target).equivalent).minimize() == target.minimize()


class LyingTeacher(TeacherBase):
    """Membership says nothing is accepted; equivalence knows a non-empty target."""

    def __init__(self, target: DFA) -> None:
        self.alphabet = target.alphabet
        self.target = target

    def member(self, word):
        return False

    def equivalent(self, hyp):
        return hyp.equivalence_witness(self.target)


class RandomTeacher(TeacherBase):
    """Coin-flip memberships; every conjecture is wrong on some fresh long word."""

    def __init__(self) -> None:
        self.alphabet = ("a", "b")
        self.rng = random.Random(0)
        self.n = 0

    def member(self, word):
        return self.rng.random() < 0.5

    def equivalent(self, hyp):
        self.n += 1
        w = tuple("ab"[(self.n >> i) & 1] for i in range(12)) + ("a",) * (self.n % 7)
        return w


@pytest.mark.parametrize("name", LEARNER_NAMES)
@pytest.mark.parametrize("lazy", [False, True])
def test_inconsistent_teachers_raise(name, lazy):
    if lazy and name not in LAZY_LEARNERS:
        pytest.skip("NL* does not learn lazily")
    with pytest.raises(LearningError):
        learn(LyingTeacher(random_target(8, 2, 3)), name, lazy=lazy)
    with pytest.raises(LearningError):
        learn(RandomTeacher(), name, lazy=lazy, max_states=60)


def test_unknown_learner():
    with pytest.raises(ValueError):
        learn(DFATeacher(DFA.empty(("a",))), "nope")


def test_cache_is_reused_across_runs():
    target = random_target(15, 3, 17)
    first = learn(DFATeacher(target), "lsharp")
    cache = QueryCache.from_json(first.cache.to_json())
    again = learn(DFATeacher(target), "lsharp", cache=cache)
    assert again.dfa == first.dfa
    assert again.stats.by_teacher == 0 and again.stats.by_cache == again.stats.membership_asked


def test_on_conjecture_sees_every_hypothesis():
    target = random_target(10, 2, 19)
    seen = []
    r = learn(DFATeacher(target), "kv", on_conjecture=lambda h, ce: seen.append((h, ce)))
    assert [h for h, _ in seen] == r.conjectures and seen[-1][1] is None
    assert all(ce is not None and h.accepts(ce) != target.accepts(ce) for h, ce in seen[:-1])


def test_lsharp_hypotheses_agree_with_its_observation_tree():
    target = random_target(30, 3, 23)
    teacher = DFATeacher(target, counterexamples="random", seed=8)
    learner = LSharp(target.alphabet, QueryLayer(teacher))
    rounds = 0
    while True:
        hyp = learner.hypothesis()
        known = [n for n, o in enumerate(learner.out) if o is not None]
        assert all(hyp.accepts(learner.access[n]) == learner.out[n] for n in known)
        ce = teacher.equivalent(hyp)
        if ce is None:
            break
        rounds += 1
        learner.refine(ce)
    assert hyp.equivalent(target) and rounds > 1


def kth_from_end(k: int) -> DFA:
    """Words over a, b whose k-th letter from the end is a: 2^k DFA states, k+1 RFSA states."""
    n = 1 << k
    trans = {(q, c): ((q << 1) | (c == "a")) & (n - 1) for q in range(n) for c in "ab"}
    return DFA(("a", "b"), n, 0, frozenset(q for q in range(n) if q >> (k - 1) & 1), trans)


def test_nlstar_learns_a_residual_nfa_exponentially_smaller_than_the_dfa():
    target = kth_from_end(4)
    lrn = NLStar(("a", "b"), QueryLayer(DFATeacher(target)))
    dfa = lrn.learn(DFATeacher(target).equivalent)
    assert dfa.equivalent(target) and target.minimize().num_states == 16
    nfa = lrn.nfa()
    assert nfa.num_states <= 5 and nfa.determinize().equivalent(target)
    for w in target.words(7):
        assert nfa.accepts(w) == target.accepts(w)


def test_nlstar_is_not_lazy():
    with pytest.raises(ValueError):
        learn(DFATeacher(kth_from_end(2)), "nlstar", lazy=True)
