"""The concolic bug search, and the witness of a failing run: PAC verification draws
its batches between the sampler's (``pac/teacher.py``); `check` runs it beside the
model checker (``falsify.py``).

The search is a concolic tester (``semantics.strategies.concolic``) set to go deep:
random branch, a branch drawn before a position, flips solved at random small values
and those heading for an error tried first. A run that fails is a bug only once the
symbolic path of its decision vector fails the same check and the solver's inputs fail
it in the interpreter (``error_along``): no false positive from a disagreement of the
engines."""

from __future__ import annotations

from collections.abc import Callable

import z3

from ..automata.pushdown import RecursiveAutomaton
from ..ir.decisions import DecisionAlphabet, decision_constants
from ..ir.program import Program
from ..semantics.strategies.concolic import ConcolicSampler
from ..semantics.strategies.path import PathExplorer, PathOptions
from ..semantics.symbolic import SemanticsOptions, SymbolicSemantics
from ..semantics.targets import INLINE_RLIMIT, PathTarget
from ..semantics.traces import Counterexample, extract, replay
from ..semantics.waypoints import trace_waypoints
from .pac.error_automaton import error_automaton, flips_toward_error

FLIP_RLIMIT = 5_000_000  # z3 resource units per flip query (~0.5-1 s here)
# The bug search's decision bound (at most --max-decisions): a flip at position j of a
# run costs the symbolic execution of its path up to j, and at 1,000 the search's
# batches cost several of the sampler's (measurements in docs/DESIGN.md, the bug
# search). A failing run is kept whole past it.
SEARCH_DECISIONS = 300
SEARCH_TRIES = 4  # flips the bug search tries on one run before it starts a new one
# The kinds of failure the error automaton knows (assertions and error calls are
# decisions once ``assertions_as_branches`` rewrote them): the flips heading for one of
# them are tried first; other failures (an index out of bounds) are found by the runs.
DECIDED_KINDS = frozenset({"assertion", "error-call"})


class Undecided(Exception):
    """A query the engine could not answer (solver unknown, a bound): the verdict is
    ``unknown``, never a guess."""


def explorer_factory(prog: Program, deadline: float | None,
                     split_conditions: bool = False) -> Callable[..., PathExplorer]:
    """Makes single-path explorers of ``prog``: ``(bound, eager, rlimit, wrapping)``."""
    def explorer(bound: int, eager: bool = True, rlimit: int | None = None, wrapping: bool = True) -> PathExplorer:
        # One path at a time: small values carried as terms, not named (no definitions)
        target = PathTarget(deadline, rlimit, wrapping, inline_rlimit=INLINE_RLIMIT if rlimit is None else None)
        return PathExplorer(SymbolicSemantics(prog, SemanticsOptions(name_values=False), target),
                            PathOptions(max_decisions=bound, split_conditions=split_conditions, eager=eager))
    return explorer


def tester(explorer: Callable[..., PathExplorer], bound: int, wrapping: bool) -> Callable[[], PathExplorer]:
    """A concolic tester's explorer: it flips the last decision of a prefix a run has
    made, so only the flipped decision needs the solver (not eager), one call per flip.
    A flip the solver cannot decide within FLIP_RLIMIT is not made (as an infeasible
    one): CREST's tester bounds each query too; the bound is z3's resource count, so
    batches stay reproducible. ``wrapping`` False: flips solved over the integers alone
    (a refuted one is not made)."""
    return lambda: explorer(bound + 1, eager=False, rlimit=FLIP_RLIMIT, wrapping=wrapping)


def bug_searcher(prog: Program, alphabet: DecisionAlphabet, explorer: Callable[..., PathExplorer],
                 kinds: frozenset[str], max_decisions: int, batch: int, seed: int,
                 split_conditions: bool = False, checks: frozenset[str] | None = None,
                 errors: RecursiveAutomaton | None = None) -> ConcolicSampler:
    """The bug search of ``prog`` (assertions of ``kinds`` already rewritten as
    branches), its flips over the bit vectors (a bug may need a value to wrap).
    ``checks``: what the runs check (default ``kinds``); ``errors``: the error
    automaton of ``kinds`` when the caller has it."""
    ra = errors if errors is not None else error_automaton(prog, kinds & DECIDED_KINDS, split_conditions)
    deep = min(max_decisions, SEARCH_DECISIONS)
    return ConcolicSampler(prog, alphabet, tester(explorer, deep, True), "rbs", batch, deep, seed,
                           checks if checks is not None else kinds, aimed=True, by_branch=True,
                           aim_points=decision_constants(prog), toward=flips_toward_error(prog, ra),
                           tries=SEARCH_TRIES)


def error_along(explorer: PathExplorer, program: Program, vector: tuple[bool, ...], kinds: frozenset[str],
                replay_on: Program | None = None, replay_checks: frozenset[str] | None = None) -> Counterexample | None:
    """A run making exactly ``vector``'s decisions, then none, that fails a check of
    ``kinds``: its counterexample, replayed in the interpreter (on ``replay_on``, with
    ``replay_checks``: by default ``program`` and ``kinds``); None when the path fails
    no such check. Raises ``Undecided`` when the solver cannot tell or the replay
    does not fail the same check."""
    end = explorer.follow(vector)
    if end.status not in ("word",) or end.point is None:
        return None
    for fin in explorer.explore(end.point, max_decisions=0):
        if fin.status == "unknown":
            raise Undecided("the solver could not decide an error path")
        eq = explorer.target.eq
        viols = [s.violation for s in eq.steps
                 if s.kind == "check" and s.prop_kind in kinds and s.violation is not None]
        if not viols:
            continue
        r = explorer.target.check([z3.Or(viols)])
        if r == z3.unknown:
            raise Undecided("the solver could not decide an error path")
        if r != z3.sat:
            continue
        model = explorer.target.model()
        cex = extract(eq, model, kinds)
        cex.waypoints = trace_waypoints(eq, model, cex.prop_id, program.sources)
        cex.replay = replay(replay_on or program, cex, replay_checks or kinds)
        if cex.replay.get("status") != "confirmed":
            raise Undecided(f"the error path of {len(vector)} decisions does not replay in the "
                            f"interpreter ({cex.replay.get('interpreter')})")
        return cex
    return None
