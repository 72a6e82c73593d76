"""Concolic sampling of decision vectors (Pac-Man Sec. 5, CREST's search strategies).

A *batch* is k decision vectors from a concolic tester started afresh: a run on zero
inputs (CREST's; ``start="uniform"``: random ones), then runs on inputs the solver finds
to flip one decision of an earlier run (the inputs read after that decision keep their
values, as in CREST).
No random choice and no solver state is kept from one batch to the next (a new random
generator seeded from the batch's number, a new solver), so batches are independent and
identically distributed, which the PAC guarantee needs (Corollary 2). What a tester
does keep are facts about the program: the symbolic states along paths already followed
(the same whichever batch computed them: a flip resumes from the deepest one on its
prefix instead of executing thousands of decisions again), the flips found infeasible
or undecided within their budget (skipped, as they would fail again), the first
solution found for each feasible flip (a flip asked again gets it: every batch that
asks a question gets the same answer, where z3's shared context could return another
of the many solutions) and, from zero inputs, the run of each input list (the same run
again). None of them changes a decision of the tester.

The runs are the interpreter's; the flips are the single-path strategy's
(``PathExplorer.follow``) on the symbolic semantics: no C semantics of its own.

Strategies (CREST's names):

- ``rbs``, random branch search: flip a decision chosen uniformly on the last run's
  vector (other positions are tried when a flip is infeasible);
- ``cds``, CFG-directed search: flip a decision whose other outcome the batch has
  not covered yet, nearest the start of the run first; otherwise as ``rbs``;
- ``dfs``, bounded depth-first search: flips in depth-first order from the first
  run (each new run's positions below the flipped one are tried in turn);
- ``random-input``: every run on fresh uniformly random inputs (no solver).

PAC's bug search is ``rbs`` with ``by_branch`` (a branch drawn before a position),
``aimed`` (flips solved at random small points) and ``toward`` (the flips that head for an
error first) on: a tester that goes deep, not one whose vectors are learned.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field

import z3

from ...ir.decisions import DecisionAlphabet
from ...ir.program import Program
from ..inputs import InputSource
from ..interpreter import Interpreter, InterpOptions
from ..runs import RunResult
from ...z3dag import constants
from ..traces import input_values
from .path import PathExplorer

STRATEGIES = ("rbs", "cds", "dfs", "random-input")
STARTS = ("zero", "uniform")
# ``_fixed_from`` is asked of a run once FIXED_AFTER of its flips were tried in vain,
# of runs of at least FIXED_MIN decisions, and no more after FIXED_TRIALS of them left
# a choice and none fixed its inputs (a whole path of a long run can cost the solver
# its limit: gcd's subtraction chains)
FIXED_AFTER = 4
FIXED_MIN = 64
FIXED_TRIALS = 8
MAX_KEPT = 20_000  # vectors kept in each of the sampler's fact caches (then it starts afresh)
# Runs kept (``made``), counted in the decisions they record: a run holds up to 64 times
# the decision bound of them (~70 bytes each), and 20,000 long runs would hold gigabytes
MAX_KEPT_DECISIONS = 1_000_000


def by_branch_order(ids: list[str], rng: random.Random) -> list[int]:
    """The positions of a run (``ids``: the branch of each) in a random order that takes
    a branch uniformly among those the run went through, then one of its positions:
    weighted sampling without replacement, each position weighing 1/count of its
    branch (key u ** count, largest first). Uniform over positions, the check after
    a recursion of n levels has about 1/(2n) of a chance against each of its branches'."""
    count: dict[str, int] = {}
    for d in ids:
        count[d] = count.get(d, 0) + 1
    keys = [rng.random() ** count[d] for d in ids]
    return sorted(range(len(ids)), key=keys.__getitem__, reverse=True)


def _exact(values: list) -> tuple:
    """``values`` as a key that tells apart what Python calls equal and C does not
    (-0.0 and 0.0, 1 and 1.0)."""
    return tuple((type(v), repr(v)) for v in values)


@dataclass
class Sample:
    vector: tuple[bool, ...]
    run: RunResult
    truncated: bool  # the run went past the decision bound: ``vector`` is its prefix
    inputs: list = field(default_factory=list)  # the values the run drew


@dataclass
class SamplerStats:
    samples: int = 0
    batches: int = 0
    runs: int = 0
    flips_tried: int = 0
    flips_feasible: int = 0
    flips_known_infeasible: int = 0  # flips skipped: an earlier batch found them infeasible (or undecided)
    flips_past_fixed_inputs: int = 0  # positions passed over: the prefix before them fixes every input
    flips_toward: int = 0  # flips tried first: their letters are in ``toward``
    flips_remembered: int = 0  # feasible flips whose inputs an earlier batch had solved
    runs_remembered: int = 0  # samples whose run an earlier one had made (the same inputs)
    solver_calls: int = 0
    refutations_final_over_integers: int = 0  # integer refutations shown final (nothing could wrap): no bit vectors
    truncated: int = 0


@dataclass
class ConcolicSampler:
    """Batches of decision vectors of ``program`` (already rewritten for the analysis)."""

    program: Program
    alphabet: DecisionAlphabet
    explorer: Callable[[], PathExplorer]  # makes the single-path explorer (once; a new solver per batch)
    strategy: str = "rbs"
    k: int = 10
    max_decisions: int = 1000
    seed: int = 0
    checks: frozenset[str] = frozenset({"assertion", "error-call"})
    # Where a concolic tester's inputs start: "zero" as CREST (new inputs are 0; a flip
    # keeps the last run's values of the inputs its solution leaves out), or "uniform"
    # (uniformly random, drawn afresh for every run)
    start: str = "zero"
    # Off, as CREST's tester: the solver's first solution of a flip (small values, the
    # ends of their bounds) and positions drawn uniformly. On (PAC's bug search): each
    # flip's solution aimed at a random small point (``LinearRelaxation.rng``), and
    # positions drawn by branch first (``by_branch_order``). Runs then go deeper: bugs
    # behind a recursion are found, and the vectors are too varied to learn.
    aimed: bool = False
    by_branch: bool = False
    aim_points: tuple[int, ...] = ()  # with ``aimed``: half the aims near these (``LinearRelaxation.points``)
    # Letters (branch, letter made) whose flips are tried first, in the order drawn (PAC's
    # bug search: those heading for an error). Empty, as CREST: no position preferred.
    toward: frozenset[tuple[str, bool]] = frozenset()
    # Flips tried on one run before the tester starts over from a new run (None: every
    # position, as CREST). PAC's bug search bounds it: its runs are long, and on a
    # 300-decision run of Euclid's algorithm whose flips the solver could not decide it
    # spent 0.1-0.5 s on each of hundreds of positions, a whole time limit in one batch.
    tries: int | None = None
    stats: SamplerStats = field(default_factory=SamplerStats)
    # Flipped prefixes not made: the solver proved them infeasible or, within the flip's
    # budget (a resource count, not a time: the same answer again), could not decide
    infeasible: set[tuple[bool, ...]] = field(default_factory=set, repr=False)
    # Flipped prefix -> the inputs of the solver's first solution, and inputs -> the
    # run they make (``_flip``, ``run``)
    solved: dict[tuple[bool, ...], list] = field(default_factory=dict, repr=False)
    made: dict[tuple, Sample] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown sampling strategy {self.strategy!r} (choose from {', '.join(STRATEGIES)})")
        if self.start not in STARTS:
            raise ValueError(f"unknown start of the inputs {self.start!r} (choose from {', '.join(STARTS)})")
        self._fill = "uniform" if self.strategy == "random-input" else self.start
        self._ex: PathExplorer | None = None
        self._fixed: dict[tuple[bool, ...], int] = {}  # vector -> ``_fixed_from``
        self._made_decisions = 0  # decisions recorded by the runs in ``made``
        self._fix_found = self._fix_missed = 0
        self._interp = Interpreter(self.program, InterpOptions(
            checks=self.checks, record_decisions=True, max_steps=64 * self.max_decisions + 10_000))

    @property
    def tester(self) -> PathExplorer | None:
        """The tester's explorer once a batch started (its trie holds the paths of the
        runs flipped so far, the solver the constraints of the last one)."""
        return self._ex

    def batch(self, index: int) -> list[Sample]:
        """Batch number ``index``: k vectors from a tester restarted for it."""
        with closing(self.batch_runs(index)) as runs:
            return list(runs)

    def batch_runs(self, index: int) -> Iterator[Sample]:
        """Batch number ``index``'s runs as they are made: a caller that stops at a
        failing run leaves the batch's other runs unmade (a bug search made the whole
        batch first, and its later flips cost as much as the search before them)."""
        self.stats.batches += 1
        gen = self.stream(index)
        try:
            for _ in range(self.k):
                yield next(gen)
        finally:
            gen.close()

    def stream(self, index: int) -> Iterator[Sample]:
        """The runs of one tester started afresh (number ``index``), without end: a
        batch is its first k; a tester never restarted is all of it."""
        rng = random.Random(f"{self.seed}:{index}")
        return self._random_runs(rng) if self.strategy == "random-input" else self._concolic(rng)

    # ------------------------------------------------------------ runs

    def run(self, values: list, rng: random.Random, hints: list | None = None) -> Sample:
        seed = rng.getrandbits(64)  # drawn whether or not it is needed: the stream stays the same
        self.stats.samples += 1
        # From zero inputs the run is a function of the values and hints (nothing else is
        # drawn): one made before is that run. Flips of recursive programs come back to
        # the same few runs: a towers-of-Hanoi program's 2,025 feasible flips in 30 s
        # made 6 distinct runs.
        key = (_exact(values), _exact(hints or [])) if self._fill == "zero" else None
        if key is not None and (known := self.made.get(key)) is not None:
            self.stats.runs_remembered += 1
            if known.truncated:
                self.stats.truncated += 1
            return known
        src = InputSource(list(values), seed=seed, strategy=self._fill, hints=hints or [])
        r = self._interp.run(src, argv=None)
        self.stats.runs += 1
        limit = self.max_decisions
        # A failing run's vector is whole, however long: it is the bug's witness (a
        # prefix cut at the bound is in no error vector's place)
        failed = r.status == "violation"
        vec = self.alphabet.vector(r.decisions, limit=None if failed else limit + 1)
        truncated = not failed and (len(vec) > limit or r.status == "limit")
        if truncated:
            self.stats.truncated += 1
        sample = Sample(vec if failed else vec[:limit], r, truncated, [i.value for i in r.inputs])
        if key is not None:
            if len(self.made) >= MAX_KEPT or self._made_decisions + len(r.decisions) > MAX_KEPT_DECISIONS:
                self.made.clear()
                self._made_decisions = 0
            self.made[key] = sample
            self._made_decisions += len(r.decisions)
        return sample

    def _random_runs(self, rng: random.Random) -> Iterator[Sample]:
        while True:
            yield self.run([], rng)

    def _concolic(self, rng: random.Random) -> Iterator[Sample]:
        if self._ex is None:
            self._ex = self.explorer()
            self._ex.start()
        else:
            self._ex.target.fresh_solver()
        ex = self._ex
        if self.aimed:
            ex.target.aim(rng.getrandbits(64), self.aim_points)
        calls, settled = ex.target.calls, ex.target.refuted_without_wrapping
        try:
            if self.strategy == "dfs":
                yield from self._dfs(ex, rng)
            else:
                yield from self._random_flips(ex, rng)
        finally:
            self.stats.solver_calls += ex.target.calls - calls
            self.stats.refutations_final_over_integers += ex.target.refuted_without_wrapping - settled

    def _flip(self, ex: PathExplorer, vec: tuple[bool, ...], j: int, rng: random.Random,
              prev: list) -> Sample | None:
        """A run whose first j decisions are ``vec``'s and whose next is the other
        one, or None if no input makes them."""
        self.stats.flips_tried += 1
        flipped = vec[:j] + (not vec[j],)
        if flipped in self.infeasible:
            self.stats.flips_known_infeasible += 1
            return None
        # A flip solved before gets the same inputs (every batch asking it gets the same
        # answer) and no path is followed again. Not for aimed flips: their solution is
        # drawn.
        values = None if self.aimed else self.solved.get(flipped)
        if values is not None:
            self.stats.flips_remembered += 1
        else:
            end = ex.follow(flipped)
            if end.status != "word":
                if len(self.infeasible) >= MAX_KEPT:
                    self.infeasible.clear()
                self.infeasible.add(flipped)
                return None
            model = ex.model()
            if model is None:
                return None
            values = input_values(ex.target.eq, model)
            if not self.aimed:
                if len(self.solved) >= MAX_KEPT:
                    self.solved.clear()
                self.solved[flipped] = values
        self.stats.flips_feasible += 1
        # As CREST: the inputs the solution leaves out keep their values, where they fit
        # (past the flipped decision the reads may be others: another type, a range)
        hints = prev[len(values):] if self._fill == "zero" else []
        return self.run(values, rng, hints)

    def _random_flips(self, ex: PathExplorer, rng: random.Random) -> Iterator[Sample]:
        covered: set[tuple[str, bool]] = set()
        cur = self.run([], rng)
        while True:
            yield cur
            ids = self._ids(cur)
            covered.update(zip(ids, cur.vector))
            if self.by_branch:
                order = by_branch_order(ids, rng)
            else:
                order = list(range(len(cur.vector)))
                rng.shuffle(order)
            if self.toward:
                first = [j for j in order if (ids[j], cur.vector[j]) in self.toward]
                if first:
                    chosen = set(first)
                    order = first + [j for j in order if j not in chosen]
            if self.strategy == "cds":
                fresh = [j for j in range(len(cur.vector)) if (ids[j], not cur.vector[j]) not in covered]
                chosen = set(fresh)
                order = fresh + [j for j in order if j not in chosen]
            nxt = None
            fixed = len(cur.vector)
            for tried, j in enumerate(order):
                if tried == self.tries:
                    break
                if tried == FIXED_AFTER:
                    # Flips keep failing: leave out the positions the solver could only
                    # refute (the first feasible flip in the order is the same)
                    fixed = self._fixed_from(ex, cur.vector)
                if j >= fixed:
                    self.stats.flips_past_fixed_inputs += 1
                    continue
                if self.toward and (ids[j], cur.vector[j]) in self.toward:
                    self.stats.flips_toward += 1
                nxt = self._flip(ex, cur.vector, j, rng, cur.inputs)
                if nxt is not None:
                    break
            cur = nxt if nxt is not None else self.run([], rng)  # nothing to flip: start over

    def _dfs(self, ex: PathExplorer, rng: random.Random) -> Iterator[Sample]:
        while True:  # a finished search starts again (from zero inputs: the same search)
            first = self.run([], rng)
            yield first
            # (vector, inputs, position): a run's result is not kept on the stack
            stack: list[tuple[tuple[bool, ...], list, int]] = [(first.vector, first.inputs, 0)]
            while stack:
                vec, inputs, pos = stack.pop()
                if pos >= len(vec) or (pos >= FIXED_AFTER and pos >= self._fixed_from(ex, vec)):
                    continue
                stack.append((vec, inputs, pos + 1))  # the later positions of this run, after the subtree
                s = self._flip(ex, vec, pos, rng, inputs)
                if s is not None:
                    yield s
                    stack.append((s.vector, s.inputs, pos + 1))

    def _fixed_from(self, ex: PathExplorer, vec: tuple[bool, ...]) -> int:
        """The length of the shortest prefix of ``vec`` whose path leaves every unknown of
        ``vec``'s whole path (its inputs) one value: the run is then the only one, and no
        decision after that prefix can be flipped (recursion on one input: most positions
        of a long run). ``len(vec)`` when even the whole path leaves a choice."""
        known = self._fixed.get(vec)
        if known is not None:
            return known
        n = fixed = len(vec)
        if n < FIXED_MIN or (self._fix_found == 0 and self._fix_missed >= FIXED_TRIALS):
            return n  # short (flips are cheap), or a program whose runs never fix their inputs
        end = ex.follow(vec)
        model = ex.model() if end.status == "word" else None
        if model is not None:
            # The path's unknowns that no definition determines: its inputs, and any value
            # the semantics left open (a symbol defined later on the path than a prefix
            # would never look fixed there)
            free = [c for c in constants(ex.target.eq.constraints) if ex.sem.definition(c) is None]
            other = z3.Or([x != model.eval(x, model_completion=True) for x in free])

            def fixes(k: int) -> bool:  # monotone in k: a longer prefix constrains more
                return ex.follow(vec[:k]).status == "word" and ex.target.check([other]) == z3.unsat
            if fixes(n):
                lo, hi = 0, n
                while lo < hi:
                    mid = (lo + hi) // 2
                    lo, hi = (lo, mid) if fixes(mid) else (mid + 1, hi)
                fixed = lo
        if len(self._fixed) >= MAX_KEPT:
            self._fixed.clear()
        self._fixed[vec] = fixed
        if fixed < n:
            self._fix_found += 1
        else:
            self._fix_missed += 1
        return fixed

    def _ids(self, s: Sample) -> list[str]:
        """The branch each letter of ``s`` was made at (for coverage)."""
        return [did for did, _ in self.alphabet.made(s.run.decisions, limit=len(s.vector))]
