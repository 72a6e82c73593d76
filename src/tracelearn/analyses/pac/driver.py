"""PAC verification, the driver: rewrite the program (assertions as decisions), build
the error automaton, the sampler and the teacher, run a learner, and say what came of
it: ``bug`` (a feasible error, replayed), ``pac-correct`` (the learned automaton of
feasible decision vectors, with its guarantee) or ``unknown`` (and why)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ...automata.dfa import DFA
from ...ir.decisions import DecisionAlphabet, assertions_as_branches, decision_constants
from ...ir.program import Program
from ...ir.transform import copy_program
from ...learning.lazy import learn
from ...learning.learner import LearningError
from ...learning.queries import QueryStats
from ...semantics.strategies.concolic import ConcolicSampler, SamplerStats
from ...semantics.strategies.path import PathExplorer, PathOptions
from ...semantics.symbolic import SemanticsOptions, SymbolicSemantics
from ...semantics.targets import PathTarget
from ...semantics.traces import Counterexample
from .error_automaton import error_automaton, flips_toward_error
from .teacher import BugFound, PacStats, PacTeacher, Undecided

# The paper's learners that we have, by the paper's names: Angluin's L* (prefixes of a
# counterexample as rows) is its "L*", with Rivest-Schapire counterexamples its "RS",
# with Maler-Pnueli suffixes its "L*-columns"; NL* learns residual NFAs (the model is
# their subset construction, minimized).
FLIP_RLIMIT = 5_000_000  # z3 resource units per flip query (~0.5-1 s here)
# The bug search's decision bound (at most --max-decisions): a flip at position j of a
# run costs the symbolic execution of its path up to j, and at 1,000 the search's
# batches cost several of the sampler's (measurements in docs/DESIGN.md, the bug
# search). A failing run is kept whole past it.
SEARCH_DECISIONS = 300
SEARCH_TRIES = 4  # flips the bug search tries on one run before it starts a new one

PAC_LEARNERS = {"kv": "kv", "lsharp": "lsharp", "lstar": "lstar-angluin", "rs": "lstar", "lstar-col": "lstar-mp",
                "nlstar": "nlstar"}


@dataclass
class PacOptions:
    epsilon: float = 0.1
    delta: float = 0.9  # the confidence
    batch: int = 10  # k: decision vectors per batched sample
    learner: str = "kv"
    strategy: str = "rbs"
    max_decisions: int = 1000
    seed: int = 0
    split_conditions: bool = False
    kinds: frozenset[str] = frozenset({"assertion", "error-call"})
    timeout: float | None = None
    max_states: int = 5000
    start: str = "zero"  # where a concolic tester's inputs start (``ConcolicSampler.start``)
    bug_search: int = 4  # a batch of the bug search per this many of the sampler's (0: none)


@dataclass
class PacResult:
    verdict: str  # "bug" | "pac-correct" | "unknown"
    options: PacOptions
    reason: str = ""
    automaton: DFA | None = None
    counterexample: Counterexample | None = None
    vector: tuple[bool, ...] | None = None
    found_by: str = ""
    queries: QueryStats = field(default_factory=QueryStats)
    pac: PacStats = field(default_factory=PacStats)
    sampler: SamplerStats = field(default_factory=SamplerStats)
    search: SamplerStats = field(default_factory=SamplerStats)  # the bug search's
    solver_calls: int = 0
    conjectures: int = 0
    time: float = 0.0
    decisions: int = 0  # letters of the program (branches of its own code)
    decision_ids: list[str] = field(default_factory=list)  # their branches (a saved model's alphabet)

    @property
    def error_probability(self) -> float:
        """The chance that the guarantee does not hold: 1 - delta."""
        return 1.0 - self.options.delta


def make_teacher(prog: Program, kinds: frozenset[str], opt: PacOptions, deadline: float | None,
                 progress: Callable[[str], None] | None = None) -> PacTeacher:
    """The teacher of ``prog`` (already rewritten: assertions as decisions) for the
    failures of ``kinds``: its membership explorer, sampler and error automaton."""
    def explorer(bound: int, eager: bool = True, rlimit: int | None = None, wrapping: bool = True) -> PathExplorer:
        # One path at a time: small values carried as terms, not named (no definitions)
        target = PathTarget(deadline, rlimit, wrapping)
        return PathExplorer(SymbolicSemantics(prog, SemanticsOptions(name_values=False), target),
                            PathOptions(max_decisions=bound, split_conditions=opt.split_conditions, eager=eager))

    alphabet = DecisionAlphabet.of(prog, opt.split_conditions)
    # The sampler flips the last decision of a prefix a run has made: only the flipped
    # decision needs the solver (not eager), one call per flip. A flip the solver cannot
    # decide within FLIP_RLIMIT is not made (as an infeasible one): CREST's tester bounds
    # each query too; the bound is z3's resource count, so batches stay reproducible.
    # The sampler's flips are CREST's, solved over the integers: one refuted there is not
    # made (Euclid's subtraction chains: the bit vectors spent 0.1 s on each, in vain). The
    # bug search's go on to the bit vectors, where a bug may need a value to wrap.
    def tester(bound: int, wrapping: bool) -> Callable[[], PathExplorer]:
        return lambda: explorer(bound + 1, eager=False, rlimit=FLIP_RLIMIT, wrapping=wrapping)
    sampler = ConcolicSampler(prog, alphabet, tester(opt.max_decisions, False), opt.strategy, opt.batch,
                              opt.max_decisions, opt.seed, kinds, opt.start)
    # The bug search: random branch, flips aimed at random small values, positions by
    # branch, those heading for an error first (its own seed stream: the sampler's
    # batches stay what they were)
    ra = error_automaton(prog, kinds, opt.split_conditions)
    deep = min(opt.max_decisions, SEARCH_DECISIONS)
    search = ConcolicSampler(prog, alphabet, tester(deep, True), "rbs", opt.batch, deep, opt.seed + 1_000_003,
                             kinds, aimed=True, by_branch=True, aim_points=decision_constants(prog),
                             toward=flips_toward_error(prog, ra), tries=SEARCH_TRIES) if opt.bug_search else None
    # The learner's words may go past the sampler's bound (a truncated run's prefix and
    # a suffix): membership follows them much further before answering unknown.
    return PacTeacher(prog, explorer(max(10_000, 10 * opt.max_decisions)), ra, sampler, kinds, opt.epsilon,
                      opt.delta, progress, search, max(1, opt.bug_search))


def verify(program: Program, options: PacOptions, progress: Callable[[str], None] | None = None,
           result: PacResult | None = None,
           also: Callable[[PacTeacher, DFA], tuple[str, ...] | None] | None = None) -> PacResult:
    """``result``: filled as the work goes (a caller stopped by its time limit still
    has the statistics so far). ``also``: a second property, checked on every
    conjecture before the error automaton (it returns a counterexample, or raises to
    stop the learning: model reuse's ``PropertyViolated`` goes on up to its caller)."""
    t0 = time.perf_counter()
    opt = options
    prog = assertions_as_branches(copy_program(program), opt.kinds)
    deadline = t0 + opt.timeout if opt.timeout is not None else None
    teacher = make_teacher(prog, opt.kinds, opt, deadline, progress)
    sampler, alphabet = teacher.sampler, teacher.sampler.alphabet
    teacher.also = also
    result = result if result is not None else PacResult("unknown", opt)
    stats = result.queries
    result.pac, result.sampler, result.decisions = teacher.stats, sampler.stats, len(alphabet.letters)
    result.decision_ids = list(alphabet.letters)
    conjectures: list[DFA] = []
    try:
        learned = learn(teacher, PAC_LEARNERS[opt.learner], stats=stats, max_states=opt.max_states,
                        on_conjecture=lambda h, ce: conjectures.append(h))
        result.verdict, result.automaton = "pac-correct", learned.dfa
    except BugFound as bug:
        result.verdict, result.counterexample = "bug", bug.counterexample
        result.vector, result.found_by = bug.vector, bug.found_by
    except Undecided as u:
        # A solver stopped by the time limit answers unknown: that is the timeout
        late = deadline is not None and time.perf_counter() >= deadline - 0.1
        result.reason = "timeout" if late else str(u)
    except LearningError as e:
        result.reason = f"learning stopped: {e}"
    finally:
        result.conjectures = len(conjectures)
        result.solver_calls = teacher.explorer.target.calls + sampler.stats.solver_calls
        if teacher.search is not None:
            result.search = teacher.search.stats
            result.solver_calls += teacher.search.stats.solver_calls
        result.time = time.perf_counter() - t0
        if result.verdict == "unknown" and conjectures:
            result.automaton = conjectures[-1]  # the last conjecture: no guarantee
    return result
