"""Driving a learner against a teacher, lazily or not (paper Sec. 6, Figs. 15-16).

Non-lazy: every membership query that the cache and the precheck leave open goes
to the teacher.

Lazy: such queries get a guessed answer (``guess``: False for the language of
error, True for program explanation), recorded as ``guessed``. Before each
equivalence query the guesses are checked with batch queries
(``QueryLayer.fix_guesses``): while the teacher finds a wrong guess in the batch,
that word is corrected and leaves the batch; when it finds none, the remaining
guesses are right. If any guess was wrong, the learner goes back to its snapshot
at the last conjecture, re-processes that conjecture's counterexample and goes on
with the corrected cache (a restart). Otherwise the conjecture rests on verified
answers only and is posed to the teacher.

In both modes a counterexample is reused while it still distinguishes the new
hypothesis, so one counterexample can yield several states without asking the
teacher again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..automata.dfa import DFA
from .kv import KV
from .learner import Learner, LearningError, MembershipOracle, Word
from .lsharp import LSharp
from .lstar import LStar
from .nlstar import NLStar
from .queries import BoundIndependence, QueryCache, QueryLayer, QueryStats
from .teacher import Teacher

LEARNERS: dict[str, Callable[..., Learner]] = {
    "lstar": LStar,  # Rivest-Schapire counterexamples
    "lstar-mp": lambda alphabet, oracle, **kw: LStar(alphabet, oracle, cex="mp", **kw),
    "lstar-angluin": lambda alphabet, oracle, **kw: LStar(alphabet, oracle, cex="angluin", **kw),
    "kv": KV,
    "nlstar": NLStar,  # residual NFAs; the hypothesis is their subset construction
    "lsharp": LSharp,
    "lsharp-witness": lambda alphabet, oracle, **kw: LSharp(alphabet, oracle, separation="witness", **kw),
}


@dataclass
class LearningResult:
    dfa: DFA                       # the final hypothesis, minimal and canonically numbered
    stats: QueryStats
    conjectures: list[DFA] = field(default_factory=list)  # hypotheses posed to the teacher, in order
    cache: QueryCache = field(default_factory=QueryCache)


def make_learner(learner: str, alphabet: tuple[str, ...], oracle: MembershipOracle, max_states: int) -> Learner:
    try:
        factory = LEARNERS[learner]
    except KeyError:
        raise ValueError(f"unknown learner {learner!r}; choose one of {sorted(LEARNERS)}") from None
    return factory(alphabet, oracle, max_states=max_states)


def learn(teacher: Teacher, learner: str = "lstar", *, lazy: bool = False, guess: bool = False,
          stats: QueryStats | None = None, cache: QueryCache | None = None,
          bound_independent: BoundIndependence | None = None, max_states: int = 10_000,
          max_equivalence: int | None = None,
          on_conjecture: Callable[[DFA, Word | None], None] | None = None) -> LearningResult:
    """Learn the teacher's language.

    ``learner``: "lstar" (Rivest-Schapire), "lstar-mp" (Maler-Pnueli),
    "lstar-angluin" (Angluin's prefixes as rows), "kv",
    "lsharp". ``lazy``/``guess``: lazy learning with ``guess`` as the default
    answer. ``cache``: answers from an earlier run (e.g. its bound-independent
    entries); it is updated in place and returned. ``on_conjecture`` is called
    with each posed hypothesis and the teacher's answer. Raises ``LearningError``
    when the teacher contradicts itself or a limit is exceeded."""
    if lazy and learner == "nlstar":
        # its hypotheses on guessed answers are no RFSAs and their subset constructions explode
        raise ValueError("nlstar does not learn lazily")
    queries = QueryLayer(teacher, cache=cache, stats=stats, guess=guess if lazy else None,
                         bound_independent=bound_independent)
    lrn = make_learner(learner, queries.alphabet, queries, max_states)
    limit = max_equivalence if max_equivalence is not None else 2 * max_states + 10
    conjectures: list[DFA] = []
    snap = lrn.snapshot() if lazy else None
    pending: Word | None = None  # counterexample to the last conjecture
    while True:
        hyp = lrn.hypothesis()
        if pending is not None:
            hyp = _reuse(lrn, queries, hyp, pending)
        if lazy and queries.fix_guesses():
            queries.stats.restarts += 1
            lrn.restore(snap)
            if pending is not None:
                lrn.refine(pending)
            continue
        if len(conjectures) >= limit:
            raise LearningError(f"more than {limit} equivalence queries")
        conjectures.append(hyp)
        ce = queries.equivalent(hyp)
        if on_conjecture is not None:
            on_conjecture(hyp, ce)
        if ce is None:
            return LearningResult(hyp.minimize(), queries.stats, conjectures, queries.cache)
        if lazy:
            snap = lrn.snapshot()
        pending = ce
        lrn.refine(ce)


def _reuse(lrn: Learner, queries: QueryLayer, hyp: DFA, ce: Word) -> DFA:
    """Refine with ``ce`` again while it still distinguishes; each round must add
    states or fix ``ce``, else the answers are contradictory."""
    answer = queries.cache.answer(ce)
    if answer is None:
        answer = queries.member(ce)
    while hyp.accepts(ce) != answer:
        before = hyp.num_states
        queries.stats.counterexamples_reused += 1
        lrn.refine(ce)
        hyp = lrn.hypothesis()
        if hyp.num_states <= before and hyp.accepts(ce) != answer:
            raise LearningError(f"{lrn.name}: counterexample {list(ce)} makes no progress")
    return hyp
