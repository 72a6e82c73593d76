"""The query layer between a learner and its teacher: cache, counters, guesses.

Every membership query a learner asks goes through ``QueryLayer.member``, which
answers, in this order, from

1. the cache (exact words; an entry is ``verified`` or ``guessed``),
2. deduction, when the teacher says its language is prefix-closed: a prefix of a
   word answered ``True`` is a member, an extension of one answered ``False`` is not,
3. the teacher's cheap ``precheck``,
4. a guess, when guessing is on (lazy learning: the answer is recorded as
   ``guessed`` and fixed or confirmed before the next equivalence query),
5. the teacher.

and counts which one did:
``asked == by_cache + by_deduction + by_precheck + by_guess + by_teacher``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..automata.dfa import DFA
from . import teacher as teachers
from .learner import LearningError
from .prefix_closed import PrefixClosedAnswers
from .teacher import Teacher, Word

# Where an answer came from.
SOURCES = ("teacher", "deduced", "precheck", "guess", "batch", "counterexample", "loaded")


@dataclass
class CacheEntry:
    answer: bool
    verified: bool
    source: str
    bound_independent: bool = False


@dataclass
class QueryStats:
    membership_asked: int = 0      # membership queries the learner asked
    by_cache: int = 0
    by_deduction: int = 0          # implied by earlier answers (a prefix-closed language)
    by_precheck: int = 0
    by_guess: int = 0
    by_teacher: int = 0
    equivalence: int = 0
    equivalence_by_memory: int = 0  # conjectures refuted by a word the teacher had seen (no query)
    batch_queries: int = 0         # find_member / find_non_member calls
    guesses_fixed: int = 0         # wrong guesses corrected
    guesses_confirmed: int = 0     # guesses shown right by a batch query
    restarts: int = 0              # lazy learning: learner restored to its last conjecture
    counterexamples_reused: int = 0  # refinements with a counterexample that still distinguished
    teacher: dict[str, float | int] = field(default_factory=dict)  # filled by the analysis layer

    def consistent(self) -> bool:
        return self.membership_asked == (self.by_cache + self.by_deduction + self.by_precheck + self.by_guess
                                         + self.by_teacher)

    def to_dict(self) -> dict:
        return asdict(self)


BoundIndependence = Callable[[Word, bool, str], bool]


def default_bound_independence(teacher: Teacher) -> BoundIndependence:
    """Precheck answers are bound-independent (pv Sec. 7.1: the CFG check does not
    depend on the bound) unless the teacher's ``precheck_is_bound_independent``
    says otherwise; every other answer depends on the bounds."""
    judge = getattr(teacher, "precheck_is_bound_independent", None)

    def decide(word: Word, answer: bool, source: str) -> bool:
        if source != "precheck":
            return False
        return bool(judge(word)) if judge is not None else True

    return decide


class QueryCache:
    """Exact-word answers that can be corrected."""

    def __init__(self) -> None:
        self.entries: dict[Word, CacheEntry] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, word: object) -> bool:
        return word in self.entries

    def get(self, word: Word) -> CacheEntry | None:
        return self.entries.get(word)

    def answer(self, word: Word) -> bool | None:
        e = self.entries.get(word)
        return None if e is None else e.answer

    def put(self, word: Word, answer: bool, *, verified: bool, source: str,
            bound_independent: bool = False) -> None:
        """Record an answer. A verified answer never silently changes: a different
        verified answer for the same word means the teacher is inconsistent."""
        if source not in SOURCES:
            raise ValueError(f"unknown answer source {source!r}; one of {SOURCES}")
        old = self.entries.get(word)
        if old is not None and old.verified and verified and old.answer != answer:
            raise LearningError(f"inconsistent teacher: {list(word)} answered {old.answer} "
                                f"({old.source}) and now {answer} ({source})")
        if old is not None and old.verified and not verified:
            return  # a guess never overrides a known answer
        self.entries[word] = CacheEntry(answer, verified, source, bound_independent)

    def correct(self, word: Word, answer: bool, source: str = "batch") -> bool:
        """Replace a guess by the verified answer; True if the guess was wrong."""
        old = self.entries.get(word)
        wrong = old is not None and old.answer != answer
        if old is not None and old.verified and wrong:
            raise LearningError(f"inconsistent teacher: {list(word)} was verified {old.answer}, "
                                f"now corrected to {answer}")
        indep = old.bound_independent if old is not None else False
        self.entries[word] = CacheEntry(answer, True, source, indep)
        return wrong

    def guessed(self, answer: bool | None = None) -> list[Word]:
        """Words whose answer is a guess (optionally: guessed ``answer``), in insertion order."""
        return [w for w, e in self.entries.items()
                if not e.verified and (answer is None or e.answer == answer)]

    def confirm(self, words: Iterable[Word]) -> int:
        n = 0
        for w in words:
            e = self.entries.get(w)
            if e is not None and not e.verified:
                e.verified = True
                n += 1
        return n

    def mark_bound_independent(self, predicate: Callable[[Word, CacheEntry], bool]) -> int:
        n = 0
        for w, e in self.entries.items():
            if not e.bound_independent and predicate(w, e):
                e.bound_independent = True
                n += 1
        return n

    def retain_bound_independent(self) -> int:
        """Drop every entry that is not bound-independent (bounds changed); returns
        how many were dropped."""
        before = len(self.entries)
        self.entries = {w: e for w, e in self.entries.items() if e.bound_independent}
        return before - len(self.entries)

    def discard_guesses(self) -> int:
        before = len(self.entries)
        self.entries = {w: e for w, e in self.entries.items() if e.verified}
        return before - len(self.entries)

    # ------------------------------------------------------------ persistence

    def to_json(self) -> dict:
        return {"version": 1, "entries": [
            {"word": list(w), "answer": e.answer, "verified": e.verified, "source": e.source,
             "bound_independent": e.bound_independent} for w, e in self.entries.items()]}

    @staticmethod
    def from_json(data: dict) -> QueryCache:
        c = QueryCache()
        for d in data["entries"]:
            c.entries[tuple(d["word"])] = CacheEntry(bool(d["answer"]), bool(d["verified"]),
                                                     str(d.get("source", "loaded")),
                                                     bool(d.get("bound_independent", False)))
        return c

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()))

    @staticmethod
    def load(path: str | Path) -> QueryCache:
        return QueryCache.from_json(json.loads(Path(path).read_text()))


class QueryLayer:
    """Membership and equivalence queries of one learning run, counted and cached.

    ``guess`` is None (ask the teacher) or the default answer for queries that the
    cache and the precheck leave open (lazy learning)."""

    def __init__(self, teacher: Teacher, *, cache: QueryCache | None = None, stats: QueryStats | None = None,
                 guess: bool | None = None, bound_independent: BoundIndependence | None = None) -> None:
        self.teacher = teacher
        self.alphabet: tuple[str, ...] = tuple(teacher.alphabet)
        self.cache = cache if cache is not None else QueryCache()
        self.stats = stats if stats is not None else QueryStats()
        self.guess = guess
        self.bound_independent = bound_independent or default_bound_independence(teacher)
        self._has_precheck = getattr(teacher, "precheck", None) is not None
        # What the verified answers imply, when the language is prefix-closed (a
        # guessed answer implies nothing: lazy learning keeps its own bookkeeping)
        self._implied: PrefixClosedAnswers | None = None
        if teachers.prefix_closed(teacher) and guess is None:
            self._implied = PrefixClosedAnswers()
            for w, e in self.cache.entries.items():
                if e.verified:
                    self._implied.add(w, e.answer)

    def _record(self, word: Word, answer: bool, *, verified: bool, source: str) -> None:
        self.cache.put(word, answer, verified=verified, source=source,
                       bound_independent=verified and self.bound_independent(word, answer, source))
        if verified and self._implied is not None:
            self._implied.add(word, answer)  # (a contradiction: LearningError)

    def _local(self, word: Word) -> bool | None:
        """The answer without the teacher (cache, precheck, guess), counted; or None."""
        self.stats.membership_asked += 1
        e = self.cache.get(word)
        if e is not None:
            self.stats.by_cache += 1
            return e.answer
        if self._implied is not None:
            implied = self._implied.answer(word)
            if implied is not None:
                self.stats.by_deduction += 1
                self.cache.put(word, implied, verified=True, source="deduced")
                return implied
        if self._has_precheck:
            pre = teachers.precheck(self.teacher, word)
            if pre is not None:
                self.stats.by_precheck += 1
                self._record(word, pre, verified=True, source="precheck")
                return pre
        if self.guess is not None:
            self.stats.by_guess += 1
            self.cache.put(word, self.guess, verified=False, source="guess")
            return self.guess
        return None

    def member(self, word: Word) -> bool:
        word = tuple(word)
        local = self._local(word)
        if local is not None:
            return local
        self.stats.by_teacher += 1
        ans = bool(self.teacher.member(word))
        self._answered(word, ans)
        return ans

    def _answered(self, word: Word, answer: bool) -> None:
        """Record the teacher's answer; a prefix-closed teacher's "no" also rules out
        every extension of the word's shortest prefix that is not a member."""
        self._record(word, answer, verified=True, source="teacher")
        if not answer and self._implied is not None:
            self._implied.add(teachers.shortest_non_member_prefix(self.teacher, word), False)

    def member_many(self, words: Sequence[Word]) -> list[bool]:
        """Answers for several words; the ones left for the teacher go in one batch."""
        answers: list[bool | None] = []
        todo: dict[Word, None] = {}
        for w in words:
            w = tuple(w)
            if w in todo:  # a repeat inside the batch: answered by the batch itself
                self.stats.membership_asked += 1
                self.stats.by_cache += 1
                answers.append(None)
                continue
            local = self._local(w)
            answers.append(local)
            if local is None:
                todo[w] = None
        if todo:
            asked = list(todo)
            self.stats.by_teacher += len(asked)
            for w, a in zip(asked, teachers.member_many(self.teacher, asked)):
                self._answered(w, bool(a))
        return [a if a is not None else bool(self.cache.answer(tuple(w))) for a, w in zip(answers, words)]

    def equivalent(self, hypothesis: DFA) -> Word | None:
        """The teacher's counterexample, recorded in the cache as verified (its
        answer is the opposite of the hypothesis'). Raises ``LearningError`` if a
        verified answer says the hypothesis is right on it.

        A word the teacher has already seen answered and the hypothesis gets wrong
        refutes it with no query (``equivalence_by_memory``)."""
        ce = teachers.known_counterexample(self.teacher, hypothesis)
        if ce is not None:
            self.stats.equivalence_by_memory += 1
        else:
            self.stats.equivalence += 1
            ce = self.teacher.equivalent(hypothesis)
        if ce is None:
            return None
        ce = tuple(ce)
        letters = set(self.alphabet)
        if any(a not in letters for a in ce):
            raise LearningError(f"counterexample {list(ce)} uses letters outside the alphabet")
        answer = not hypothesis.accepts(ce)
        old = self.cache.get(ce)
        if old is not None and old.verified and old.answer != answer:
            raise LearningError(f"inconsistent teacher: {list(ce)} is a counterexample, but membership "
                                f"answered {old.answer}, as the hypothesis does")
        self._record(ce, answer, verified=True, source="counterexample")
        return ce

    def fix_guesses(self) -> int:
        """Lazy learning, paper Fig. 16: batch queries over the guessed words until
        none is wrong; returns how many guesses were wrong (and are now corrected).
        Afterwards every cache entry is verified."""
        fixed = 0
        for guessed_answer, finder in ((False, teachers.find_member), (True, teachers.find_non_member)):
            batch = self.cache.guessed(guessed_answer)
            while batch:
                self.stats.batch_queries += 1
                found = finder(self.teacher, batch)
                if found is None:
                    break
                found = tuple(found)
                try:
                    batch.remove(found)
                except ValueError:
                    raise LearningError(f"batch query returned {list(found)}, which is not in the batch") from None
                self.cache.correct(found, not guessed_answer)
                e = self.cache.get(found)
                assert e is not None
                e.bound_independent = self.bound_independent(found, not guessed_answer, "batch")
                fixed += 1
            self.stats.guesses_confirmed += self.cache.confirm(batch)
            for w in batch:
                e = self.cache.get(w)
                assert e is not None
                e.source = "batch"
                e.bound_independent = self.bound_independent(w, guessed_answer, "batch")
        self.stats.guesses_fixed += fixed
        return fixed
