"""Model reuse (Pac-Man, Sec. 12): a new property checked against a saved model C of
the feasible decision vectors, with no relearning when it holds.

- L(C) ∩ L(B') empty: the property **holds**, with the model's (epsilon, delta)
  guarantee (the distribution it was learned under).
- A word w there whose path really fails (exact membership, then a replay in the
  interpreter): the property is **violated**, with the witness.
- w infeasible: the model is wrong on w (**model-refuted**). The paper continues the
  learning with w as a counterexample; our learners cannot resume from a saved DFA,
  so with ``relearn`` the model is learned again (same options) and checked again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ...automata.dfa import DFA, Word
from ...automata.pushdown import shortest_error_word
from ...ir.decisions import assertions_as_branches
from ...ir.program import Program
from ...ir.transform import copy_program
from ...semantics.traces import Counterexample, input_values, model_inputs
from .driver import PacOptions, PacResult, make_teacher, vector_sites, verify
from .properties import PROPERTY_KIND, DecisionProperty, with_property_errors
from .teacher import PacTeacher, Undecided, vector_of, word_of

VERDICTS = ("holds", "violated", "model-refuted", "unknown")


@dataclass
class ReuseResult:
    verdict: str  # one of VERDICTS
    prop: DecisionProperty
    reason: str = ""
    vector: tuple[bool, ...] | None = None  # the word of L(C) ∩ L(B') (violated / model-refuted)
    vector_sites: list[str] | None = None  # violated: the decision of each letter of ``vector``
    counterexample: Counterexample | None = None  # violated: a failing run, replayed
    inputs: list[dict] = field(default_factory=list)  # violated (regular property): the run's inputs
    replay: dict = field(default_factory=dict)  # violated (regular property): the interpreter's run
    error_nodes: int = 0  # where an error automaton B' fails
    membership: int = 0  # membership queries (solver)
    solver_calls: int = 0
    time: float = 0.0
    relearned: PacResult | None = None  # model-refuted and relearned: the new learning
    then: ReuseResult | None = None  # ...and what came of the property in it


class PropertyViolated(Exception):
    """The property fails on a feasible vector (raised out of a relearning)."""

    def __init__(self, found: ReuseResult) -> None:
        super().__init__(f"{found.prop.text} is violated")
        self.found = found


@dataclass
class _Checker:
    """The property against one automaton. Membership is asked of the program the
    model was learned from (``base``); a reachability property's error runs are
    searched in the program with its error nodes (``errors``), where a path ends at
    the label."""

    prop: DecisionProperty
    errors: PacTeacher | None

    def word(self, base: PacTeacher, model: DFA) -> Word | None:
        """None: the property holds on ``model``. A word: ``model`` accepts it and no
        run makes it. Raises ``PropertyViolated`` or ``Undecided``."""
        found = ReuseResult("violated", self.prop)
        if self.errors is not None:
            hit = shortest_error_word(self.errors.errors, model)
            if hit is None:
                return None
            e, rest = hit
            cex = self.errors.error_along(vector_of(e))
            if cex is not None:
                found.counterexample, found.vector = cex, vector_of(e)
                found.vector_sites = vector_sites(self.errors.program, self.errors.sampler.alphabet, cex,
                                                  found.vector, self.errors.kinds)
                raise PropertyViolated(found)
            w = e + rest
            if base.member(w):
                raise Undecided(f"the vector {''.join(w)} reaches {self.prop.target} in the automaton and is "
                                "feasible, but no run along it does (a condition outside the decisions)")
            return w
        assert self.prop.bad is not None
        w = model.complete(self.prop.bad.alphabet).intersection(self.prop.bad).shortest_word()
        if w is None or not base.member(w):
            return w
        ex = base.explorer
        end = ex.follow(vector_of(w))
        m = ex.model() if end.status == "word" else None
        if m is None:
            raise Undecided(f"the solver gave no inputs for the feasible vector {''.join(w)}")
        run = base.sampler.run(input_values(ex.target.eq, m), random.Random(0))
        made = word_of(run.vector)
        if made[:len(w)] != tuple(w):
            raise Undecided(f"the inputs of the vector {''.join(w)} make {''.join(made)} in the interpreter: "
                            "the engines disagree")
        found.vector, found.inputs = vector_of(w), model_inputs(ex.target.eq, m)
        found.vector_sites = [d for d, _ in base.sampler.alphabet.made(run.run.decisions, len(w))]
        found.replay = {"status": "confirmed", "vector": "".join(made), "interpreter": run.run.status}
        raise PropertyViolated(found)


def check_model(program: Program, model: DFA, prop: DecisionProperty, opt: PacOptions, relearn: bool = True,
                progress: Callable[[str], None] | None = None,
                done: Callable[[ReuseResult], None] | None = None) -> ReuseResult:
    """Check ``prop`` against ``model``, learned from ``program`` under ``opt``.
    ``done`` receives the result of the check before any relearning (a caller stopped
    by its time limit while learning again still has it)."""
    t0 = time.perf_counter()
    say = progress or (lambda s: None)
    deadline = t0 + opt.timeout if opt.timeout is not None else None
    prog = assertions_as_branches(copy_program(program), opt.kinds)
    base = make_teacher(prog, opt.kinds, opt, deadline)
    res = ReuseResult("unknown", prop)
    errors = None
    if prop.is_reachability:
        with_errors = copy_program(prog)
        res.error_nodes = with_property_errors(with_errors, prop)
        errors = make_teacher(with_errors, frozenset({PROPERTY_KIND}), opt, deadline)
    checker = _Checker(prop, errors)
    say(f"checking {prop.text} against the model ({model.num_states} states)")
    try:
        w = checker.word(base, model)
        if w is None:
            res.verdict = "holds"
        else:
            res.verdict, res.vector = "model-refuted", vector_of(w)
            res.reason = f"the model accepts {''.join(w)}, which no run makes"
    except PropertyViolated as v:
        res = replace(v.found, error_nodes=res.error_nodes)
    except Undecided as u:
        res.verdict, res.reason = "unknown", str(u)
    res.membership = base.stats.membership_solver
    res.solver_calls = base.explorer.target.calls + (errors.explorer.target.calls if errors is not None else 0)
    if done is not None:
        done(res)
    if res.verdict == "model-refuted" and relearn:
        res.then = _relearn(program, checker, opt, t0, say, res)
    res.time = time.perf_counter() - t0
    return res


def _relearn(program: Program, checker: _Checker, opt: PacOptions, t0: float, say: Callable[[str], None],
             res: ReuseResult) -> ReuseResult:
    """The paper's continuation: learn again with the property checked on every
    conjecture (its refuting words are counterexamples), from the start, since our
    learners cannot resume from a saved automaton."""
    say("the model is refuted: learning again, the property checked on every conjecture")
    left = None if opt.timeout is None else max(0.001, opt.timeout - (time.perf_counter() - t0))
    again = replace(opt, timeout=left)
    then = ReuseResult("unknown", checker.prop, error_nodes=res.error_nodes)
    res.relearned = PacResult("unknown", again)
    try:
        verify(program, again, say, res.relearned, also=checker.word)
    except PropertyViolated as v:
        then = replace(v.found, error_nodes=res.error_nodes)
        res.relearned.reason = "stopped: the property is violated"
    else:
        r = res.relearned
        if r.verdict == "pac-correct":
            then.verdict = "holds"
        elif r.verdict == "bug":
            then.reason = "learning found a failing check of the program itself (see the relearned witness)"
        else:
            then.reason = r.reason
    return then
