"""The integer reading of a bit-vector path condition, where nothing wraps around.

For sums, differences and constant multiples of bit-vector values, compared signed or
unsigned, this reading means the same as the bit vectors as long as no term wraps
around; every sum, difference, product and narrowing cast (an extraction) is held in
its range, so a solution is a bit-vector model too (checked by evaluation). When the
reading is unsatisfiable, every bit-vector model wraps somewhere.

The PAC sampler's path target asks it of every flip before the bit vectors, as CREST
solved its flips over the integers (with Yices): solved, the flip needs no
bit-blasting of its path (on Euclid's subtraction chains that was most of a sample's
cost); refuted, the bit vectors get a fiftieth of their budget and, undecided then, no
more. A refutation here proves nothing about the bit-vector query: it only decides how
much effort that query gets. Small values are tried first, as the tester's zero start;
with a random generator (``rng``: the PAC bug search) a solution is moved towards a random
small point, where the solver's own would sit at the end of a bound.

Most questions are refuted (the flips of a recursion). A refutation does not depend on
the solver that finds it, so one solver, kept until ``forget`` (the sampler's restarts),
tries each question first: each formula's reading is asserted in it once, behind a
literal, and a question assumes the literals of its formulas. Solutions come from a
solver of the question's own, as before: an incremental solver keeps its arithmetic's
last assignment, so its solutions are not the small ones a fresh solver gives (with
them, Ackermann01's runs grew long and its learning ran past 60 s, from 1-2 s).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import z3
from z3 import z3core as C

from ..z3dag import applications, assert_all, constants, holds
from .bv2int import BvToInt, Untranslatable
from .intervals import HELD_IN_RANGE
from .solving import check_bounded

SMALL = 255  # values tried first lie in [-SMALL, SMALL]
AIM_TRIES = 3  # aims tried for an aimed solution (all variables, half, a quarter)
MAX_TERMS = 200_000  # readings kept (then the translator starts afresh)


@dataclass
class LinearRelaxation:
    """Integer readings of bit-vector terms, kept across questions (the paths of one
    sampler share their prefixes)."""

    rlimit: int = 2_000_000  # z3's resource units per question (the answer is then unknown)
    questions: int = 0
    refuted: int = 0
    solutions: int = 0  # solutions that are bit-vector models too
    # When set, a solution is moved towards a random small point (``_aimed``): the
    # solver alone gives the bounds' ends, and a tester flipping ``n > k`` got n = k + 1,
    # one value per flip, never reaching the deep runs a bug needed
    rng: random.Random | None = field(default=None, repr=False)
    # With ``rng``: half the aims are one of these (the program's constants, a step either
    # side), as fuzzers try the values comparisons test: ``x != 5`` behind a recursion
    # wants x = 5 exactly, one point in 511
    points: tuple[int, ...] = ()
    _tr: BvToInt | None = field(default=None, repr=False)
    # formula id -> (the formula, kept alive; its reading with its ranges; its variables)
    _read: dict[int, tuple[z3.BoolRef, z3.BoolRef, tuple[z3.ExprRef, ...]]] = field(default_factory=dict,
                                                                                    repr=False)
    # The solver that tries to refute each question first, and the ids of the formulas
    # whose ``literal => reading`` it holds; formula id -> its literal (``_read`` keeps
    # the formula, and so its id, alive)
    _refuter: z3.Solver | None = field(default=None, repr=False)
    _in_refuter: set[int] = field(default_factory=set, repr=False)
    _lits: dict[int, z3.BoolRef] = field(default_factory=dict, repr=False)

    def forget(self) -> None:
        """A new refuting solver: what it may leave unknown (its resource limit) then
        depends on the questions asked from here on only (a sampler's restart)."""
        self._refuter = None
        self._in_refuter.clear()

    def solve(self, formulas: list[z3.BoolRef], deadline: float | None = None
              ) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        """The integer reading of ``formulas``: unsat; sat, with the bit-vector model of
        its solution when that satisfies ``formulas`` (None when a term wraps around);
        or unknown (a term with no integer reading here, or the solver's limit)."""
        self.questions += 1
        if not formulas:
            return z3.unknown, None
        ctx = formulas[0].ctx
        # (the literals go with the readings: the refuter knows formulas by id, and an id
        # is reused once its formula is gone)
        if self._tr is None or self._tr.ctx is not ctx or len(self._tr.cache) > MAX_TERMS \
                or len(self._read) >= MAX_TERMS:
            self._tr = BvToInt(ctx, relaxed=True)
            self._read.clear()
            self._lits.clear()
            self.forget()
        try:
            ids = [C.Z3_get_ast_id(ctx.ref(), f.as_ast()) for f in formulas]
            readings = [self._reading(f, i) for f, i in zip(formulas, ids)]
        except (Untranslatable, RecursionError):
            return z3.unknown, None
        if self._refuted(ids, readings, deadline):
            self.refuted += 1
            return z3.unsat, None
        # z3's SMT core at once: the default solver's preprocessing on every question took
        # 0.3 ms of z3's time even for x > 5, more than most of these questions need
        s = z3.SimpleSolver(ctx=ctx)
        s.set("rlimit", self.rlimit)
        assert_all(s, [r for _, r, _ in readings])  # (z3py's add casts each: most of a flip's cost)
        variables = list({c.get_id(): c for _, _, cs in readings for c in cs}.values())
        # Small values first, as a tester's zero start (short runs: cheap to sample and
        # to learn); a question only larger ones answer gets any
        small = [z3.And(self._tr.term(c) >= -SMALL, self._tr.term(c) <= SMALL) for c in variables]
        r = check_bounded(s, small, deadline) if small else z3.unknown  # Ctrl-C and the time limit honoured
        in_small = r == z3.sat
        # refuted with none of the bounds in the core: refuted without them (most flips
        # of a recursion are refuted, each asked twice before)
        if r == z3.unsat and len(s.unsat_core()) == 0:
            self.refuted += 1
            return r, None
        if not in_small:
            r = check_bounded(s, [], deadline)
        if r == z3.unsat:
            self.refuted += 1
        if r != z3.sat:
            return r, None
        m = s.model()
        if self.rng is not None and in_small:
            m = self._aimed(s, m, variables, small, deadline)
        # The solution as a bit-vector model (a solver given only the values: no search),
        # evaluated on the formulas rather than solved with them (bit-blasting a whole
        # path to check fixed values cost 0.13 s)
        pin = z3.SimpleSolver(ctx=ctx)
        pin.set("rlimit", self.rlimit)
        for c in variables:
            v = m.eval(self._tr.term(c), model_completion=True).as_long()
            pin.add(c == z3.BitVecVal(v % (1 << c.size()), c.size(), ctx))
        if check_bounded(pin, [], deadline) != z3.sat:
            return r, None
        model = pin.model()
        if not holds(model, formulas):
            return r, None
        self.solutions += 1
        return r, model

    def _refuted(self, ids: list[int], readings: list, deadline: float | None) -> bool:
        """Does the refuting solver refute these readings?"""
        if self._refuter is None:
            self._refuter = z3.SimpleSolver(ctx=readings[0][1].ctx)
            self._refuter.set("rlimit", self.rlimit)
        s = self._refuter
        lits = []
        for i, (_, r, _) in zip(ids, readings):
            lit = self._lits.get(i)
            if lit is None:
                lit = self._lits[i] = z3.Bool(f"__tl_read{i}", r.ctx)
            if i not in self._in_refuter:
                self._in_refuter.add(i)
                assert_all(s, [z3.Implies(lit, r)])
            lits.append(lit)
        return check_bounded(s, lits, deadline) == z3.unsat

    def _aimed(self, s: z3.Solver, m: z3.ModelRef, variables: list[z3.ExprRef], small: list[z3.BoolRef],
               deadline: float | None) -> z3.ModelRef:
        """A solution moved from ``m`` towards a random small point: each variable at
        least (at most) its aim where the aim lies above (below) its value in ``m``.
        Where that leaves no solution, half the variables are aimed, then a quarter
        (ANDed bounds of many variables rarely hold together); ``m`` when none does."""
        rng = self.rng
        assert rng is not None and self._tr is not None
        chosen = list(variables)
        for _ in range(AIM_TRIES):
            if not chosen:
                break
            aim = []
            for c in chosen:
                v = self._tr.term(c)
                if self.points and rng.random() < 0.5:
                    at = rng.choice(self.points) + rng.choice((-1, 0, 1))
                else:
                    at = rng.randint(-SMALL, SMALL)
                now = m.eval(v, model_completion=True).as_long()
                if at != now:
                    aim.append(v >= at if at > now else v <= at)
            if aim and check_bounded(s, small + aim, deadline) == z3.sat:
                return s.model()
            chosen = rng.sample(chosen, len(chosen) // 2)
        return m

    def _reading(self, f: z3.BoolRef, key: int) -> tuple[z3.BoolRef, z3.BoolRef, tuple[z3.ExprRef, ...]]:
        """``f`` read over the integers, with every variable and every sum, difference,
        product, shift and extraction in it held in its range ("nothing wraps": a
        solution is then a bit-vector model too; without, the solver put gcd's inputs at
        the ends of their ranges, where 35*m - 69*n wraps), and its bit-vector
        variables. Built once per formula: a sampler's paths share most of theirs, and
        building the ranges anew for every question cost more than its answer."""
        hit = self._read.get(key)
        if hit is None:
            assert self._tr is not None
            variables = tuple(c for c in constants([f]) if z3.is_bv(c))
            hit = (f, self._tr.held_in_range(f, list(variables) + applications([f], HELD_IN_RANGE)), variables)
            self._read[key] = hit
        return hit
