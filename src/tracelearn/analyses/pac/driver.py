"""PAC verification, the driver: rewrite the program (assertions as decisions), build
the error automaton, the sampler and the teacher, run a learner, and say what came of
it: ``bug`` (a feasible error, replayed), ``pac-correct`` (the learned automaton of
feasible decision vectors, with its guarantee) or ``unknown`` (and why)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ...automata.dfa import DFA
from ...ir.decisions import DecisionAlphabet, assertions_as_branches
from ...ir.program import Program
from ...ir.transform import copy_program
from ...learning.lazy import learn
from ...learning.learner import LearningError
from ...learning.queries import QueryStats
from ...semantics.inputs import InputSource
from ...semantics.interpreter import Interpreter
from ...semantics.runs import InterpOptions
from ...semantics.strategies.concolic import ConcolicSampler, SamplerStats
from ...semantics.traces import Counterexample
from ..bug_search import Undecided, bug_searcher, explorer_factory, tester
from .error_automaton import error_automaton
from .teacher import BugFound, PacStats, PacTeacher

# The paper's learners that we have, by the paper's names: Angluin's L* (prefixes of a
# counterexample as rows) is its "L*", with Rivest-Schapire counterexamples its "RS",
# with Maler-Pnueli suffixes its "L*-columns"; NL* learns residual NFAs (the model is
# their subset construction, minimized).
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
    vector_sites: list[str] | None = None  # the decision (source condition) of each letter of ``vector``
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
    explorer = explorer_factory(prog, deadline, opt.split_conditions)
    alphabet = DecisionAlphabet.of(prog, opt.split_conditions)
    # The sampler's flips are CREST's, solved over the integers: one refuted there is not
    # made (Euclid's subtraction chains: the bit vectors spent 0.1 s on each, in vain)
    sampler = ConcolicSampler(prog, alphabet, tester(explorer, opt.max_decisions, False), opt.strategy, opt.batch,
                              opt.max_decisions, opt.seed, kinds, opt.start)
    # The bug search (its own seed stream: the sampler's batches stay what they were)
    ra = error_automaton(prog, kinds, opt.split_conditions)
    search = bug_searcher(prog, alphabet, explorer, kinds, opt.max_decisions, opt.batch, opt.seed + 1_000_003,
                          opt.split_conditions, errors=ra) if opt.bug_search else None
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
        result.vector_sites = vector_sites(prog, alphabet, bug.counterexample, bug.vector, opt.kinds)
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


def vector_sites(prog: Program, alphabet: DecisionAlphabet, cex: Counterexample, vector: tuple[bool, ...],
                 kinds: frozenset[str]) -> list[str] | None:
    """The decision each letter of a bug's ``vector`` was made at, from the interpreter's
    run of its witness's inputs (``prog``: assertions rewritten as decisions); None where
    that run makes another vector (it does not, when the witness replays), or fails: a
    detail of the witness, never at the cost of the bug found."""
    steps = cex.replay.get("steps") if isinstance(cex.replay, dict) else None  # the replay's length, if known
    limit = 2 * steps + 10_000 if isinstance(steps, int) else 20_000_000
    try:
        it = Interpreter(prog, InterpOptions(checks=kinds, record_decisions=True, max_steps=limit))
        run = it.run(InputSource(list(cex.input_values), seed=0), argv=None)
    except Exception:  # noqa: BLE001 - any failure of the interpreter here leaves the sites unknown
        return None
    made = alphabet.made(run.decisions, len(vector))
    return [d for d, _ in made] if tuple(a for _, a in made) == tuple(vector) else None
