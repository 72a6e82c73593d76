"""The query layer: cache, counters, prechecks, batches, guess fixing."""

from __future__ import annotations

import pytest

from tracelearn.automata import DFA
from tracelearn.learning import DFATeacher, LearningError, QueryCache, QueryLayer, QueryStats, TeacherBase

# Words over {f, g, assert} that end in one assert after f: g* f assert.
TARGET = DFA(("g", "f", "assert"), 3, 0, frozenset({2}), {(0, "g"): 0, (0, "f"): 1, (1, "assert"): 2})


class PrecheckTeacher(TeacherBase):
    """pv-like: words not ending in 'assert' are rejected without the solver."""

    def __init__(self, target: DFA = TARGET) -> None:
        self.alphabet = target.alphabet
        self.target = target
        self.members: list[tuple] = []
        self.batches: list[list[tuple]] = []

    def precheck(self, word):
        return False if not word or word[-1] != "assert" else None

    def precheck_is_bound_independent(self, word):
        return len(word) < 3

    def member(self, word):
        self.members.append(word)
        return self.target.accepts(word)

    def find_member(self, words):
        self.batches.append(list(words))
        return super().find_member(words)

    def equivalent(self, hyp):
        return hyp.equivalence_witness(self.target)


def test_counters_add_up_and_each_source_is_used():
    t = PrecheckTeacher()
    q = QueryLayer(t)
    assert q.member(("f", "assert")) is True        # teacher
    assert q.member(("f", "assert")) is True        # cache
    assert q.member(("g",)) is False                # precheck
    assert q.member(("g", "assert")) is False       # teacher
    s = q.stats
    assert (s.membership_asked, s.by_teacher, s.by_cache, s.by_precheck, s.by_guess) == (4, 2, 1, 1, 0)
    assert s.consistent()
    assert t.members == [("f", "assert"), ("g", "assert")]
    q.guess = False
    assert q.member(("g", "f", "assert")) is False  # guessed, and wrong
    assert s.by_guess == 1 and s.consistent()
    assert q.cache.guessed() == [("g", "f", "assert")]


def test_member_many_batches_and_counts_repeats():
    t = PrecheckTeacher()
    q = QueryLayer(t)
    words = [("f", "assert"), ("g",), ("f", "assert"), ("g", "g", "f", "assert"), ("assert",)]
    assert q.member_many(words) == [True, False, True, True, False]
    assert q.stats.membership_asked == 5 and q.stats.consistent()
    assert q.stats.by_teacher == 3 and q.stats.by_precheck == 1 and q.stats.by_cache == 1
    assert len(t.members) == 3


def test_bound_independence_follows_the_teacher_and_survives_retain():
    t = PrecheckTeacher()
    q = QueryLayer(t)
    q.member(("g",))                        # precheck, short: independent
    q.member(("g", "g", "g"))               # precheck, long: the teacher says dependent
    q.member(("f", "assert"))               # teacher: dependent
    assert q.cache.get(("g",)).bound_independent
    assert not q.cache.get(("g", "g", "g")).bound_independent
    assert not q.cache.get(("f", "assert")).bound_independent
    assert q.cache.retain_bound_independent() == 2
    assert list(q.cache.entries) == [("g",)]
    marked = q.cache.mark_bound_independent(lambda w, e: True)
    assert marked == 0


def test_custom_bound_independence_hook():
    t = PrecheckTeacher()
    q = QueryLayer(t, bound_independent=lambda w, ans, src: ans)  # keep positive answers
    q.member(("f", "assert"))
    q.member(("g", "assert"))
    q.cache.retain_bound_independent()
    assert list(q.cache.entries) == [("f", "assert")]


def test_cache_save_load(tmp_path):
    c = QueryCache()
    c.put(("a",), True, verified=True, source="teacher", bound_independent=True)
    c.put(("a", "b"), False, verified=False, source="guess")
    path = tmp_path / "cache.json"
    c.save(path)
    d = QueryCache.load(path)
    assert d.entries == c.entries
    assert d.guessed() == [("a", "b")]


def test_verified_answers_do_not_change_silently():
    c = QueryCache()
    c.put(("a",), True, verified=True, source="teacher")
    c.put(("a",), False, verified=False, source="guess")  # a guess never overrides
    assert c.answer(("a",)) is True
    with pytest.raises(LearningError):
        c.put(("a",), False, verified=True, source="teacher")
    with pytest.raises(LearningError):
        c.correct(("a",), False)
    c.put(("b",), False, verified=False, source="guess")
    assert c.correct(("b",), True) is True
    assert c.get(("b",)).verified and c.answer(("b",)) is True
    assert c.correct(("b",), True) is False


def test_fix_guesses_uses_one_batch_per_wrong_guess_plus_one():
    t = PrecheckTeacher()
    q = QueryLayer(t, guess=False)
    words = [("f", "assert"), ("g", "assert"), ("g", "f", "assert"), ("f", "f", "assert"), ("g", "g", "f", "assert")]
    assert q.member_many(words) == [False] * 5
    assert q.stats.by_guess == 5 and q.stats.by_teacher == 0
    fixed = q.fix_guesses()
    assert fixed == 3
    assert q.stats.batch_queries == 4 and len(t.batches) == 4
    assert q.stats.guesses_fixed == 3 and q.stats.guesses_confirmed == 2
    assert q.cache.guessed() == []
    assert [q.cache.answer(w) for w in words] == [True, False, True, False, True]
    assert q.fix_guesses() == 0 and q.stats.batch_queries == 4  # nothing left to check


def test_fix_guesses_true_guesses_use_find_non_member():
    t = DFATeacher(TARGET)
    q = QueryLayer(t, guess=True)
    words = [("f", "assert"), ("g",), ("assert",)]
    assert q.member_many(words) == [True, True, True]
    assert q.fix_guesses() == 2
    assert t.stats.find_non_member == 3 and t.stats.find_member == 0
    assert [q.cache.answer(w) for w in words] == [True, False, False]


def test_fix_guesses_rejects_words_outside_the_batch():
    class Liar(PrecheckTeacher):
        def find_member(self, words):
            return ("f", "assert", "x")

    q = QueryLayer(Liar(), guess=False)
    q.member(("f", "assert"))
    with pytest.raises(LearningError):
        q.fix_guesses()


def test_equivalence_counterexample_is_recorded_and_checked():
    t = PrecheckTeacher()
    q = QueryLayer(t)
    empty = DFA.empty(TARGET.alphabet)
    ce = q.equivalent(empty)
    assert ce == ("f", "assert")
    assert q.cache.get(ce).verified and q.cache.answer(ce) is True
    assert q.stats.equivalence == 1

    class Stubborn(PrecheckTeacher):
        def equivalent(self, hyp):
            return ("g", "assert")  # not a counterexample to the empty hypothesis

    q2 = QueryLayer(Stubborn())
    q2.member(("g", "assert"))
    with pytest.raises(LearningError):
        q2.equivalent(empty)


def test_a_counterexample_the_teacher_already_knows_poses_no_equivalence_query():
    class Remembering(PrecheckTeacher):
        def __init__(self) -> None:
            super().__init__()
            self.posed = 0

        def known_counterexample(self, hyp):
            return ("f", "assert") if not hyp.accepts(("f", "assert")) else None

        def equivalent(self, hyp):
            self.posed += 1
            return super().equivalent(hyp)

    t = Remembering()
    q = QueryLayer(t)
    assert q.equivalent(DFA.empty(TARGET.alphabet)) == ("f", "assert")
    assert (q.stats.equivalence, q.stats.equivalence_by_memory, t.posed) == (0, 1, 0)
    assert q.cache.get(("f", "assert")).verified and q.cache.answer(("f", "assert")) is True
    assert q.equivalent(TARGET) is None  # it knows nothing against the target: the teacher is asked
    assert (q.stats.equivalence, q.stats.equivalence_by_memory, t.posed) == (1, 1, 1)


def test_counterexample_with_unknown_letter_is_rejected():
    class Odd(PrecheckTeacher):
        def equivalent(self, hyp):
            return ("zzz",)

    with pytest.raises(LearningError):
        QueryLayer(Odd()).equivalent(DFA.empty(TARGET.alphabet))


def test_stats_to_dict_has_teacher_counters():
    s = QueryStats()
    s.teacher["solver_calls"] = 3
    d = s.to_dict()
    assert d["teacher"] == {"solver_calls": 3} and d["membership_asked"] == 0


class PrefixClosedTeacher(TeacherBase):
    """The prefixes of 'aab' and of 'ba' (prefix-closed), with the shortest
    non-member prefix of a no: what a program's decision vectors give."""

    alphabet = ("a", "b")
    prefix_closed = True

    def __init__(self) -> None:
        self.words = {w[:k] for w in (("a", "a", "b"), ("b", "a")) for k in range(len(w) + 1)}
        self.members: list[tuple] = []

    def member(self, word):
        self.members.append(tuple(word))
        return tuple(word) in self.words

    def shortest_non_member_prefix(self, word):
        return next(tuple(word[:k]) for k in range(len(word) + 1) if tuple(word[:k]) not in self.words)

    def equivalent(self, hyp):
        return None


def test_a_prefix_closed_language_answers_what_earlier_answers_imply():
    t = PrefixClosedTeacher()
    q = QueryLayer(t)
    assert q.member(("a", "a", "b")) is True     # teacher
    assert q.member(("a", "a")) is True          # a prefix of a member
    assert q.member(("a", "b", "a")) is False    # teacher; its shortest non-member prefix is 'ab'
    assert q.member(("a", "b", "b", "b")) is False  # extends 'ab': deduced
    assert q.member(("a", "b")) is False         # 'ab' itself: deduced
    s = q.stats
    assert (s.by_teacher, s.by_deduction, s.by_cache) == (2, 3, 0) and s.consistent()
    assert t.members == [("a", "a", "b"), ("a", "b", "a")]
    assert q.cache.get(("a", "b")).source == "deduced"


def test_deduction_needs_a_teacher_that_says_its_language_is_prefix_closed():
    t = PrecheckTeacher()  # 'f assert' is a member, 'f' is not: not prefix-closed
    q = QueryLayer(t)
    assert q.member(("f", "assert")) is True
    assert q.member(("f",)) is False  # the precheck's answer, not a deduction
    assert q.stats.by_deduction == 0 and q.stats.by_precheck == 1


def test_an_answer_against_prefix_closedness_stops_the_learning():
    t = PrefixClosedTeacher()
    t.words.add(("b", "b", "b"))  # a member whose prefix 'bb' is not
    q = QueryLayer(t)
    assert q.member(("b", "b", "b")) is True
    assert q.member(("b", "b")) is True  # deduced: the teacher is not asked
    with pytest.raises(LearningError, match="prefix-closed"):
        q.member(("b", "b", "a"))  # no, and its shortest non-member prefix is 'bb'
