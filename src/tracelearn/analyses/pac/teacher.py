"""The mechanical teacher of PAC verification (Pac-Man, Fig. 2).

- ``member(d)``: is ``d`` a feasible decision vector? The single-path strategy follows
  it on the symbolic semantics, one solver over shared prefixes.
- ``equivalent(C)``: first L(C) ∩ L(B_P) (B_O before it, cheap): a word there is a
  feasible error (reported: ``BugFound``) or a counterexample (C accepts it, it is
  infeasible). Then the i-th equivalence query draws q_i batches from the sampler; a
  sampled vector C rejects is a counterexample, a sampled run that fails is a bug.
  Between the query's batches, a bug search (a second tester, its flips aimed at random
  values) draws one batch every few: a failing run there is a bug too; its other runs
  are not counterexamples, so the guarantee's distribution stays the sampler's.

No false positives: a bug is reported only when its vector is in L(B_P), the path of
that vector fails a check in the solver, and the solver's inputs fail the same check
in the interpreter.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field

from ...automata.dfa import DFA
from ...automata.pushdown import EmptinessStats, RecursiveAutomaton, accepts, over_approximation_empty, \
    shortest_error_word
from ...ir.program import Program
from ...learning.pac import batches_needed
from ...learning.prefix_closed import PrefixClosedAnswers
from ...learning.teacher import TeacherBase, Word
from ...semantics.strategies.concolic import ConcolicSampler, Sample
from ...semantics.strategies.path import PathEnd, PathExplorer
from ...semantics.traces import Counterexample
from ..bug_search import Undecided, error_along


@dataclass
class BugFound(Exception):
    counterexample: Counterexample
    vector: tuple[bool, ...]
    found_by: str  # "error automaton" | "sampling" | "bug search"

    def __str__(self) -> str:
        return f"feasible error found by {self.found_by}"


@dataclass
class PacStats:
    membership_solver: int = 0       # membership queries the path explorer answered
    membership_checked: int = 0      # of those, the ones it asked the solver about (the rest:
                                     # from its store of infeasible prefixes)
    prefix_probes: int = 0           # prefixes of a non-member followed to find the shortest one
    equivalence: int = 0             # equivalence queries posed by sampling
    batches: list[int] = field(default_factory=list)  # batches drawn per sampling equivalence query
    emptiness_tests: int = 0
    emptiness_by_over_approximation: int = 0  # answered empty by B_O alone
    error_words: int = 0             # words of L(C) ∩ L(B_P) returned as counterexamples
    sample_counterexamples: int = 0
    search_batches: int = 0          # batches of the bug search
    time_membership: float = 0.0
    time_emptiness: float = 0.0
    time_sampling: float = 0.0       # the bug search's included


def word_of(vector: tuple[bool, ...]) -> Word:
    return tuple("1" if b else "0" for b in vector)


def vector_of(word: Word) -> tuple[bool, ...]:
    return tuple(a == "1" for a in word)


class PacTeacher(TeacherBase):
    alphabet = ("0", "1")
    prefix_closed = True  # decision(P) (Sec. 6): the learner deduces what it can

    def __init__(self, program: Program, explorer: PathExplorer, errors: RecursiveAutomaton,
                 sampler: ConcolicSampler, kinds: frozenset[str], epsilon: float, delta: float,
                 progress: Callable[[str], None] | None = None, search: ConcolicSampler | None = None,
                 search_every: int = 4) -> None:
        self.program = program
        self.explorer = explorer
        self.errors = errors
        self.sampler = sampler
        # The bug search: a batch of ``search`` before every ``search_every``-th batch drawn.
        # The sampler's distribution is what the learned automaton is guaranteed for; the
        # vectors it draws are mostly short (the solver's first solutions: small values)
        # and a bug behind a recursion of a hundred levels is almost never among them.
        self.search = search
        self.search_every = search_every
        self.kinds = kinds
        self.epsilon = epsilon
        self.delta = delta
        self.stats = PacStats()
        self.progress = progress or (lambda s: None)
        self.next_batch = 0  # batches the equivalence queries have used
        # The vectors of the batches drawn, not used by a query yet (not the runs: a
        # query may draw hundreds of batches ahead, and a run records every decision)
        self._drawn: list[list[tuple[bool, ...]]] = []
        # The batches the queries have used (their distinct vectors, numbered): a later
        # conjecture that rejects a vector in more than epsilon of them would most likely
        # fail a query too, and is refuted with no query (``known_counterexample``)
        self._seen: dict[Word, int] = {}
        self._seen_batches: list[tuple[int, ...]] = []
        self.also: Callable[[PacTeacher, DFA], Word | None] | None = None
        # decision(P) is prefix-closed: prefixes of sampled vectors and of members are
        # members, extensions of non-members are none (answered without the solver)
        self.known = PrefixClosedAnswers()

    # ------------------------------------------------------------ membership

    def precheck(self, word: Word) -> bool | None:
        return self.known.answer(word)

    def member(self, word: Word) -> bool:
        known = self.known.answer(word)
        if known is not None:
            return known
        calls = self.explorer.target.calls
        self.stats.membership_solver += 1
        end = self._follow(word)
        self.stats.membership_checked += self.explorer.target.calls > calls
        if end.status in ("word", "infeasible", "exit"):
            member = end.status == "word"
            self.known.add(word, member)
            return member
        raise Undecided(f"membership of a {len(word)}-decision vector: {end.status} ({end.reason})")

    def shortest_non_member_prefix(self, word: Word) -> Word:
        """The shortest infeasible prefix of ``word`` (not a member). Membership is
        monotone along a word's prefixes (decision(P) is prefix-closed): a binary search,
        the known answers first, the others followed (``prefix_probes``; each a short
        resumption of a path the explorer has stored). An undecided probe stops it at
        what is proved."""
        lo, hi = 0, len(word)  # (the empty word is every run's prefix)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            known = self.known.answer(word[:mid])
            if known is None:
                self.stats.prefix_probes += 1
                end = self._follow(word[:mid])
                if end.status not in ("word", "infeasible", "exit"):
                    break
                known = end.status == "word"
                self.known.add(word[:mid], known)
            lo, hi = (mid, hi) if known else (lo, mid)
        return word[:hi]

    def _follow(self, word: Word) -> PathEnd:
        t0 = time.perf_counter()
        try:
            return self.explorer.follow(vector_of(word))
        finally:
            self.stats.time_membership += time.perf_counter() - t0

    # ------------------------------------------------------------ equivalence

    def equivalent(self, hypothesis: DFA) -> Word | None:
        if self.also is not None:  # another property checked on every conjecture (model reuse)
            ce = self.also(self, hypothesis)
            if ce is not None:
                return ce
        ce = self.error_word(hypothesis)
        if ce is not None:
            return ce
        return self._sample(hypothesis)

    def known_counterexample(self, hypothesis: DFA) -> Word | None:
        """The shortest prefix the conjecture rejects of a vector of the used batches,
        when more than epsilon of them hold one; else None (the query is posed).

        The guarantee rests on the fresh batches of the query that accepts; refuting a
        conjecture here takes nothing from it (that conjecture would most likely fail a
        query). Below epsilon the query is posed and may accept: a rare vector is not
        fitted at any price (on a doubly recursive program of the benchmarks, with any
        used batch refuting, one 167-decision vector in 65 batches took the automaton
        from 32 states to 305 and the solver's membership queries from 81 to 1,614)."""
        cut = {i: w[:k] for w, i in self._seen.items() if (k := hypothesis.shortest_rejected_prefix(w)) is not None}
        failing = sum(1 for b in self._seen_batches if not cut.keys().isdisjoint(b))
        if failing <= self.epsilon * len(self._seen_batches):
            return None
        return _shortest(list(cut.values()))

    def error_word(self, h: DFA) -> Word | None:
        t0 = time.perf_counter()
        self.stats.emptiness_tests += 1
        try:
            if over_approximation_empty(self.errors, h):
                self.stats.emptiness_by_over_approximation += 1
                return None
            found = shortest_error_word(self.errors, h, EmptinessStats())
        finally:
            self.stats.time_emptiness += time.perf_counter() - t0
        if found is None:
            return None
        e, rest = found
        if not rest:
            cex = self.error_along(vector_of(e))
            if cex is not None:
                raise BugFound(cex, vector_of(e), "error automaton")
        w = e + rest
        if self.member(w):
            raise Undecided(f"the error vector {''.join(w)} is feasible but its error is not (a condition "
                            "outside the decisions, e.g. an assumption, blocks it)")
        self.stats.error_words += 1
        return w

    def _failures(self, batch: Iterable[Sample], found_by: str = "sampling") -> None:
        for s in batch:  # a failing run anywhere in the batch first: it ends the analysis
            if s.run.status == "violation" and s.run.violation is not None and s.run.violation.kind in self.kinds:
                self._confirm_sampled_bug(s, found_by)

    def _sample(self, h: DFA) -> Word | None:
        self.stats.equivalence += 1
        i = self.stats.equivalence
        q = batches_needed(i, self.epsilon, self.delta)
        t0 = time.perf_counter()
        try:
            # All q batches first, a failing run anywhere in them first: they are the
            # batches this query and the next would draw (a batch depends on its index
            # only: the sampler restarts for each), so the same automaton is learned, but
            # a bug is not left behind a counterexample in an earlier batch and the
            # membership queries of the conjectures in between.
            while len(self._drawn) < q:
                index = self.next_batch + len(self._drawn)
                # the search's batch before the sampler's 0, every, 2 * every, ...: first,
                # a bug it finds at once ends the analysis before any sampler batch
                if self.search is not None and index % self.search_every == 0:
                    self.stats.search_batches += 1
                    with closing(self.search.batch_runs(self.stats.search_batches - 1)) as runs:
                        self._failures(runs, "bug search")  # (its runs after a failing one are not made)
                self.progress(f"equivalence query {i}: batch {len(self._drawn) + 1}/{q}, {h.num_states} states")
                batch = self.sampler.batch(index)
                self._drawn.append([s.vector for s in batch])
                for s in batch:
                    self.known.add(word_of(s.vector), True)
                self._failures(batch)
            for n in range(q):
                words = {word_of(v) for v in self._drawn.pop(0)}
                self.next_batch += 1
                self._seen_batches.append(tuple(self._seen.setdefault(w, len(self._seen)) for w in words))
                ce = _shortest_rejected(h, words)
                if ce is not None:
                    self.stats.batches.append(n + 1)
                    self.stats.sample_counterexamples += 1
                    return ce
        finally:
            self.stats.time_sampling += time.perf_counter() - t0
        self.stats.batches.append(q)
        return None

    def _confirm_sampled_bug(self, s: Sample, found_by: str) -> None:
        if not accepts(self.errors, word_of(s.vector)):
            raise Undecided(f"a sampled run fails ({s.run.violation}) but its decision vector is not in "
                            "L(B_P): the error automaton and the interpreter disagree")
        cex = self.error_along(s.vector)
        if cex is None:
            raise Undecided(f"a sampled run fails ({s.run.violation}) but the symbolic path of its "
                            "decision vector cannot: the engines disagree")
        raise BugFound(cex, s.vector, found_by)

    # ------------------------------------------------------------ errors

    def error_along(self, vector: tuple[bool, ...]) -> Counterexample | None:
        """A run making exactly ``vector``'s decisions, then none, that fails a check of
        the analysis' kinds: its counterexample, replayed in the interpreter; or None."""
        return error_along(self.explorer, self.program, vector, self.kinds)


def _shortest_rejected(h: DFA, words: set[Word]) -> Word | None:
    """A sampled vector is feasible, and so is each of its prefixes: the shortest
    prefix ``h`` rejects, over ``words``, is the counterexample (a run's vector may be
    ~1000 decisions long; the learner's queries grow with it)."""
    return _shortest([w[:k] for w in words if (k := h.shortest_rejected_prefix(w)) is not None])


def _shortest(words: list[Word]) -> Word | None:
    """The shortest of ``words``, the least of those in order (a set's order varies)."""
    return min(words, key=lambda w: (len(w), w)) if words else None
