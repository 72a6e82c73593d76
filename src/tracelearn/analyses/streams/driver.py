"""``learn-filter``: Sigma*'s loop (Alg. 3). Close the symbolic table, conjecture a
transducer, ask the equivalence oracle; a separating input refines the table (after
its replay shows the program and the conjecture really differ on it), a proof ends
the loop with ``complete: true``, anything else with ``complete: false`` and why."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, replace

from ...automata.transducer import DisjointGuards, Transducer
from ...bvterm import TermFacts
from ...ir.program import Program
from ...learning.symbolic_table import SymbolicTable
from ...semantics.strategies.bigstep import (BigStepOptions, CounterMayWrap, Element, FilterRunner, LookbackExceeded,
                                             StepExplorer)
from ...semantics.strategies.stepwalk import StepWalker
from ...semantics.strategies.abstract_steps import AbstractExplorer
from .abstraction import AbstractionChecker
from .equivalence import EquivalenceChecker, EquivalenceResult
from .teacher import FilterTeacher, WalkFailed
from .windows import step_values

MAX_LOOKBACK = 8
ABSTRACT_MAX_OUTPUTS = 256  # per path of a step from an abstract state (``BigStepOptions.max_outputs``)
PROBE = ord("0")  # the probe run's element: a digit, a letter for hex, no markup


@dataclass
class LearnOptions:
    function: str
    element: Element = field(default_factory=Element)
    lookback: int | None = None  # None: what the runs show, up to MAX_LOOKBACK
    max_rounds: int = 50  # conjectures
    max_boundaries: int = 5000  # boundaries the equivalence oracle explores
    max_depth: int | None = None  # None: unbounded (a proof); N: every input of up to N elements
    timeout: float = 300.0
    max_statements: int = 1_000_000  # per big step: an input-free loop ends here
    # a counter's values above its constants one value of the boundaries (off: every
    # value its own, and a counting filter is proved up to the depth bound only)
    counters: bool = True
    # "paper": the table's columns start with every guard Alg. 2 finds (Sigma*);
    # "counterexamples": columns come from separating inputs only (fewer runs: the
    # oracle is exact and cheap, so a missing column costs one more round)
    columns: str = "counterexamples"
    # "syntactic": table entries compared as text (the paper); "semantic": as functions
    # of the window where the step's guard holds (a solver call per new output sequence)
    compare: str = "syntactic"
    # separating inputs an equivalence query gathers (breadth first, one per disagreeing
    # step) before the table is refined with all of them (Sigma*: one)
    witnesses: int = 8
    # "boundaries": the filter's own states, explored beside the conjecture (exact: no
    # spurious input); "abstraction": Sigma*'s predicate abstraction, refined with
    # weakest preconditions of its spurious runs (Alg. 3)
    oracle: str = "boundaries"


@dataclass
class Refinement:
    """A separating input the oracle found, replayed: the program's and the
    conjecture's outputs on it."""

    input: list[int]
    program: list[int]
    conjecture: list[int] | None
    conjecture_states: int
    # what each step wrote (the final move's last): the outputs can be equal as a whole
    # and differ in when they are written
    program_steps: list[list[int]] = field(default_factory=list)
    conjecture_steps: list[list[int]] | None = None

    def to_json(self) -> dict:
        return {"input": self.input, "program_output": self.program, "conjecture_output": self.conjecture,
                "program_steps": self.program_steps, "conjecture_steps": self.conjecture_steps,
                "conjecture_states": self.conjecture_states}


@dataclass
class LearnResult:
    options: LearnOptions
    complete: bool = False
    transducer: Transducer | None = None
    reason: str = ""
    refinements: list[Refinement] = field(default_factory=list)
    equivalence: list[EquivalenceResult] = field(default_factory=list)
    lookback: int = 0
    # proved equal on every input of at most this many elements, not on every input (a
    # counter of the filter may wrap past it); None otherwise
    exact_up_to: int | None = None
    counters_off: str = ""  # why learning started again without counters
    time: float = 0.0
    teacher: FilterTeacher | None = None
    table: SymbolicTable | None = None
    route: str = ""  # how the table's runs were answered: "walk" (explored steps) or "concolic"
    walk_failed: str = ""  # why the walk gave way to concolic runs
    walk_spent: dict[str, int] = field(default_factory=dict)  # the queries and calls of that walk
    explorers: dict[int, StepExplorer] = field(default_factory=dict)  # 0: the walk's and the oracle's; 1: the abstraction's
    abstraction: AbstractionChecker | None = None  # the "abstraction" oracle (its refinements and predicates)

    def reset(self) -> None:
        """Back to nothing learned (the options and the time kept)."""
        for f in fields(self):
            if f.name not in ("options", "time"):
                setattr(self, f.name, f.default_factory() if f.default_factory is not MISSING else f.default)

    def stats(self) -> dict:
        t = self.teacher.stats if self.teacher is not None else None
        tab = self.table.stats if self.table is not None else None
        eqs = self.equivalence
        w = self.teacher.runner if self.teacher is not None and isinstance(self.teacher.runner, StepWalker) else None
        # path feasibility checks while exploring big steps (the walk's and the oracle's)
        explored = sum(x.sem.target.calls for x in self.explorers.values())
        # the totals include a failed walk's work (the breakdowns are the final route's)
        spent = self.walk_spent
        return {
            "membership_queries": (t.membership if t else 0) + spent.get("membership_queries", 0),
            "runs": (t.runs if t else 0) + spent.get("runs", 0),
            "solver_calls": ((t.solver_calls if t else 0) + sum(e.solver_calls for e in eqs) + explored
                             + spent.get("solver_calls", 0)),
            "solver_calls_learning": t.solver_calls if t else 0,
            "solver_calls_equivalence": sum(e.solver_calls for e in eqs),
            "equivalence_queries": len(eqs),
            "conjecture_refinements": len(self.refinements),
            "abstraction_refinements": len(self.abstraction.refinements) if self.abstraction is not None else 0,
            "predicates": len(self.abstraction.abstraction.predicates) if self.abstraction is not None else 0,
            "boundaries_explored": sum(e.boundaries for e in eqs),
            "symbolic_steps": sum(e.steps for e in eqs),
            "runs_route": self.route,
            "walk_failed": self.walk_failed,
            "walk_spent": dict(spent),
            "walked_boundaries": w.boundaries if w is not None else 0,
            "solver_calls_exploration": explored,
            "table_rows": tab.rows if tab else 0,
            "table_columns": tab.columns if tab else 0,
            "time": round(self.time, 4),
        }


def learn(program: Program, opts: LearnOptions, progress: Callable[[str], None] | None = None,
          result: LearnResult | None = None) -> LearnResult:
    """Learn ``opts.function`` of ``program``; ``result`` (if given) is filled in as it
    goes, so a caller stopped from outside keeps the last conjecture. The table's runs
    walk the filter's explored big steps; where a walk cannot answer, learning starts
    again with concolic runs (one route per table: their guards are written
    differently)."""
    t0 = time.perf_counter()
    res = result if result is not None else LearnResult(opts)
    try:
        return _routes(program, opts, progress, res, t0)
    except CounterMayWrap as e:
        res.reset()
        res.counters_off = str(e)
        return _routes(program, replace(opts, counters=False), progress, res, t0)


def _routes(program: Program, opts: LearnOptions, progress: Callable[[str], None] | None,
            res: LearnResult, t0: float) -> LearnResult:
    """The walk first, then (if it cannot answer) concolic runs."""
    try:
        return _learn(program, opts, progress, res, t0, walk=True)
    except WalkFailed as e:
        spent = res.stats()
        res.reset()
        res.walk_failed = str(e)
        res.walk_spent = {k: spent[k] for k in ("membership_queries", "runs", "solver_calls")}
        return _learn(program, opts, progress, res, t0, walk=False)


def _learn(program: Program, opts: LearnOptions, progress: Callable[[str], None] | None,
           res: LearnResult, t0: float, walk: bool) -> LearnResult:
    deadline = t0 + opts.timeout
    bounds = BigStepOptions(max_statements=opts.max_statements, counters=opts.counters)
    max_k = opts.lookback if opts.lookback is not None else MAX_LOOKBACK
    # the big steps explored, by window: the walk's and the oracle's (kept between
    # rounds: the filter's steps stay the same)
    explorers: dict[int, StepExplorer] = {}
    res.explorers = explorers
    # the steps' conditions are the table's letters and the conjectures' guards: what
    # is asked of a term (its window places, its closure) is computed once for all
    facts = TermFacts()

    def explorer(k: int) -> StepExplorer:
        # one explorer, widened in place: the steps found at a narrower window stay
        if 0 not in explorers:
            explorers[0] = StepExplorer(program, opts.function, opts.element, k, bounds, facts=facts)
            explorers[0].deadline = deadline
        explorers[0].widen(k)
        return explorers[0]

    k = opts.lookback if opts.lookback is not None else 0
    concolic = FilterRunner(program, opts.function, opts.element, bounds)

    def probe() -> None:
        # One concolic run longer than the lookback bound: a filter whose steps read
        # further back (one that decides on its whole input before it writes) is outside
        # the class, said at once rather than after the oracle (or a walk, through the
        # steps of states that keep the whole input) has widened its window place by place.
        teacher.probe(concolic, [PROBE] * (max_k + 2))

    # A walk needs the probe only when a state holds more than the last element: a
    # guard reads no further back than the state holds.
    runner = StepWalker(explorer, max(k, 1), max(max_k, 1), before_widening=probe, facts=facts) if walk else concolic
    teacher = FilterTeacher(runner, max_k, lookback_given=opts.lookback is not None, deadline=deadline)
    if not walk or k > 1:
        probe()
    table = SymbolicTable(teacher, opts.element.bits, initial_columns=opts.columns == "paper",
                          compare=opts.compare, facts=facts)
    res.teacher, res.table = teacher, table
    res.route = "walk" if walk else "concolic"
    pending: list[list[int]] = []  # the oracle's other separating inputs, not used yet

    def replay(witness: list[int]) -> list[list[int]]:
        _, obs = teacher.run(witness)
        return step_values(obs.outputs, list(obs.values), opts.element.bits)

    def oracle(k: int) -> EquivalenceChecker | AbstractionChecker:
        if opts.oracle != "abstraction":
            return EquivalenceChecker(explorer(k), opts.max_boundaries, opts.max_depth, deadline,
                                      max_witnesses=opts.witnesses, facts=facts)
        if res.abstraction is None:  # kept between rounds: its predicates stay
            inner = StepExplorer(program, opts.function, opts.element, k,
                                 replace(bounds, counters=False, max_outputs=ABSTRACT_MAX_OUTPUTS), facts=facts)
            inner.deadline = deadline
            explorers[1] = inner
            absx = AbstractExplorer(inner, no_wrap=opts.counters)
            absx.deadline = deadline
            res.abstraction = AbstractionChecker(absx, replay, opts.max_boundaries, opts.max_depth, deadline,
                                                 facts=facts)
        res.abstraction.abstraction.widen(k)
        return res.abstraction
    conj: Transducer | None = None
    disjoint: DisjointGuards = {}  # guard lists of a state's moves proved disjoint

    def _refine(witness: list[int], oracles: bool = False) -> bool:
        """Refine the table with ``witness`` if it separates the conjecture (False if
        not; the oracle's own is reported either way). Step by step, as the oracle
        compares: the same output written one step later (a filter that holds an
        element back) is a difference the table must learn, though the whole outputs
        are equal."""
        assert conj is not None
        run, obs = teacher.run(witness)
        steps = conj.trace(witness)
        program_steps = step_values(obs.outputs, list(obs.values), opts.element.bits)
        separates = steps != program_steps
        if separates or oracles:
            res.refinements.append(Refinement(witness, run.outputs, conj.run(witness), conj.states,
                                              program_steps, steps))
        if separates:
            table.refine(obs)
        return separates

    try:
        for rnd in range(1, opts.max_rounds + 1):
            if progress:
                progress(f"conjecture {rnd}: filling the table ({teacher.stats.runs} runs)")
            table.close()
            table.initial_output = teacher.initial_output or ()
            conj = table.conjecture()
            conj.chars = opts.element.chars
            res.transducer = conj
            overlap = conj.overlapping(disjoint)
            if overlap is not None:
                res.reason = (f"the conjecture is not deterministic (guards {overlap[0].guard} and "
                              f"{overlap[1].guard} overlap): two paths of the filter read the same window "
                              f"differently")
                return res
            # A separating input gathered by an earlier query that still separates this
            # conjecture refines it without asking the oracle (its run is cached)
            refined = False
            while pending and not refined:
                refined = _refine(pending.pop(0))
            if refined:
                continue
            if progress:
                progress(f"conjecture {rnd}: {conj.states} states; checking equivalence")
            while True:
                k = max(k, conj.lookback, 1, runner.k if isinstance(runner, StepWalker) else 1)
                checker = oracle(k)
                try:
                    eq = checker.check(conj)
                    break
                except TimeoutError as e:
                    eq = EquivalenceResult("unknown", reason=str(e))
                    break
                except LookbackExceeded as e:
                    if k >= max_k:
                        eq = EquivalenceResult("unknown", reason=f"{e}: beyond the lookback bound {max_k}")
                        break
                    k += 1
            res.equivalence.append(eq)
            res.lookback = k
            if eq.status == "equivalent":
                if res.abstraction is None:
                    res.reason = (f"proved equivalent: {eq.boundaries} boundaries of the filter explored "
                                  f"with every step agreeing")
                    bound = explorer(k).exact_length()
                else:
                    res.reason = _abstraction_proof(res.abstraction, eq)
                    bound = res.abstraction.abstraction.bound()
                if bound is None:
                    res.complete = True
                    return res
                # boundaries one only while a counter has not wrapped: proved up to that length
                n, c = bound
                res.exact_up_to = n
                if res.abstraction is not None:
                    res.reason = (f"{res.reason}, on every input of "
                                  f"at most {n:,} elements: the abstraction takes the counter '{c.display}' "
                                  f"({c.loc}) not to pass {c.wraps_past:,}, and it moves by at most "
                                  f"{res.abstraction.abstraction.grows_of(c)} an element")
                    return res
                res.reason = (f"proved equivalent on every input of at most {n:,} elements: {eq.boundaries} "
                              f"boundaries of the filter explored with every step agreeing, its counter "
                              f"'{c.display}' ({c.loc}) taken as one value {c.beyond}, the {c.extreme} constant "
                              f"it is compared with; on longer inputs it may pass {c.wraps_past:,} and wrap")
                return res
            if eq.status == "unknown":
                res.reason = eq.reason
                return res
            assert eq.witness is not None
            pending.extend(eq.more)
            if not _refine(eq.witness, oracles=True):
                res.reason = (f"the oracle's separating input {eq.witness} gives the same outputs at every "
                              "step in a run: the two engines disagree (please report)")
                return res
        res.reason = f"no equivalent conjecture after {opts.max_rounds} rounds"
        return res
    except TimeoutError as e:  # filling the table: the last conjecture (if any) stands, incomplete
        res.reason = str(e)
        return res
    finally:
        res.time = time.perf_counter() - t0


def _abstraction_proof(a: AbstractionChecker, eq: EquivalenceResult) -> str:
    phi = a.abstraction.predicates
    return (f"proved equivalent to the predicate abstraction of the filter ({len(phi)} predicate"
            f"{'s' if len(phi) != 1 else ''}, {len(a.refinements)} abstraction refinement"
            f"{'s' if len(a.refinements) != 1 else ''}, {eq.boundaries} abstract boundaries explored with every "
            f"step agreeing)")
