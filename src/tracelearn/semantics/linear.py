"""The integer reading of a bit-vector path condition, where nothing wraps around.

For sums, differences and constant multiples of bit-vector values, compared signed or
unsigned, this reading means the same as the bit vectors as long as no term wraps
around; every sum, difference, product and narrowing cast (an extraction) is held in
its range, so a solution is a bit-vector model too (checked by evaluation). When the reading is unsatisfiable, every
bit-vector model wraps somewhere. The PAC sampler's path target asks it of a flip that
the bit-vector solver could not decide on a fiftieth of its budget: refuted, the flip
gets no more effort. Euclid's subtraction chains are an example: z3 could not decide 33 of
gcd's flips in 0.7 s each, and the integer reading refuted each of them in 0.02-0.05 s.
The exact translation (``bv2int``, with its wrap-arounds) did not decide them in 5 s
either. CREST solved its flips over the integers with Yices. A refutation here proves
nothing about the bit-vector query: it only decides how much effort that query gets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from ..z3dag import applications, constants, holds
from .bv2int import BvToInt, Untranslatable
from .solving import check_sat

MAX_TERMS = 200_000  # readings kept (then the translator starts afresh)
# the operators whose relaxed reading can leave the range (an extraction: a cast to a
# narrower type, read as the value itself)
_WRAPPING = frozenset({z3.Z3_OP_BADD, z3.Z3_OP_BSUB, z3.Z3_OP_BNEG, z3.Z3_OP_BMUL, z3.Z3_OP_BSHL,
                       z3.Z3_OP_EXTRACT})


@dataclass
class LinearRelaxation:
    """Integer readings of bit-vector terms, kept across questions (the paths of one
    sampler share their prefixes)."""

    rlimit: int = 2_000_000  # z3's resource units per question (the answer is then unknown)
    questions: int = 0
    refuted: int = 0
    solutions: int = 0  # solutions that are bit-vector models too
    _tr: BvToInt | None = field(default=None, repr=False)
    # formula id -> (the formula, kept alive; its sums, differences and products)
    _terms: dict[int, tuple[z3.ExprRef, tuple[z3.ExprRef, ...]]] = field(default_factory=dict, repr=False)

    def solve(self, formulas: list[z3.BoolRef], deadline: float | None = None
              ) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        """The integer reading of ``formulas``: unsat; sat, with the bit-vector model of
        its solution when that satisfies ``formulas`` (None when a term wraps around);
        or unknown (a term with no integer reading here, or the solver's limit)."""
        self.questions += 1
        if not formulas:
            return z3.unknown, None
        ctx = formulas[0].ctx
        if self._tr is None or self._tr.ctx is not ctx or len(self._tr.cache) > MAX_TERMS:
            self._tr = BvToInt(ctx, relaxed=True)
            self._terms.clear()
        try:
            read = [self._tr.term(f) for f in formulas]
        except (Untranslatable, RecursionError):
            return z3.unknown, None
        s = z3.Solver(ctx=ctx)
        s.set("rlimit", self.rlimit)
        s.add(read)
        variables = [c for c in constants(formulas) if z3.is_bv(c)]
        # Every variable and every sum, difference, product, shift and extraction in its
        # range: "nothing wraps", so that a solution is a bit-vector model too (without, the solver
        # put gcd's inputs at the ends of their ranges, where 35*m - 69*n wraps)
        for t in variables + self._arithmetic(formulas):
            v, w = self._tr.term(t), t.size()
            s.add(v >= -(1 << (w - 1)), v < (1 << (w - 1)))
        r = check_sat(s, [], deadline)  # Ctrl-C and the time limit honoured
        if r == z3.unsat:
            self.refuted += 1
        if r != z3.sat:
            return r, None
        m = s.model()
        # The solution as a bit-vector model (a solver given only the values: no search),
        # evaluated on the formulas rather than solved with them (bit-blasting a whole
        # path to check fixed values cost 0.13 s)
        pin = z3.Solver(ctx=ctx)
        for c in variables:
            v = m.eval(self._tr.term(c), model_completion=True).as_long()
            pin.add(c == z3.BitVecVal(v % (1 << c.size()), c.size(), ctx))
        if check_sat(pin, [], deadline) != z3.sat:
            return r, None
        model = pin.model()
        if not holds(model, formulas):
            return r, None
        self.solutions += 1
        return r, model

    def _arithmetic(self, formulas: list[z3.BoolRef]) -> list[z3.ExprRef]:
        """The sums, differences, negations and products in ``formulas`` (found once per
        formula: a sampler's paths share most of theirs)."""
        out: dict[int, z3.ExprRef] = {}
        for f in formulas:
            key = f.get_id()
            hit = self._terms.get(key)
            if hit is None:
                hit = (f, tuple(applications([f], _WRAPPING)))
                self._terms[key] = hit
            for t in hit[1]:
                out.setdefault(t.get_id(), t)
        return list(out.values())

