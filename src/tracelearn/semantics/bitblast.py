"""An equation bit-blasted once for many queries under assumptions.

z3's default solver preprocesses (equation solving, bit-blasting) only a solver's first,
assumption-free check; under assumptions it answers with its incremental core, 10-20
times slower on pv's heap programs, so the learning teacher's queries went to a fresh
solver that bit-blasted the whole equation again each time (6 s for one query of pv's
schedule). z3's incremental SAT-based solver (``SolverFor("QF_BV")``) keeps the
clauses, and what it learned, from one check to the next, but gives up on floats and
uninterpreted functions. So the equation is translated once: floats to bit-vectors
(``fpa2bv``) and the functions fpa2bv leaves for unspecified results (the bits of a
NaN) to constants (``ackermannize_bv``); the tactics' model converter maps a model back
to the equation's own constants. None of these tactics removes a bit-vector or Boolean
constant, so a constraint added later over them means the same in both solvers; one
that is not pure bit-vector (a float in it) ends the session and the caller asks z3 as
before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3
from z3 import z3core

from ..z3dag import leaves
from .solving import check_sat

PREPROCESS = ("simplify", "fpa2bv", "simplify", "ackermannize_bv")
# How z3 names the constants its tactics make (models hide them): a numbered symbol
# (fpa2bv, printed k!N) or a name beginning so (ackermannize_bv).
FRESH_PREFIX = "k!"


def _pure_bv(constraints: list[z3.BoolRef]) -> bool:
    g = z3.Goal()
    g.add(*constraints)
    return z3.Probe("is-qfbv")(g) == 1.0


def _fresh_constants(goal: z3.Goal) -> list[z3.ExprRef]:
    """The constants z3's tactics made in ``goal``."""
    ctx = goal.ctx
    ref = ctx.ref()
    found: list[z3.ExprRef] = []
    for _, app in leaves(ref, [goal[i].as_ast() for i in range(len(goal))], set()):
        if app is None:
            continue
        d = z3core.Z3_get_app_decl(ref, app)
        if z3core.Z3_get_decl_kind(ref, d) != z3.Z3_OP_UNINTERPRETED:
            continue
        sym = z3core.Z3_get_decl_name(ref, d)
        if (z3core.Z3_get_symbol_kind(ref, sym) == z3.Z3_INT_SYMBOL
                or z3core.Z3_get_symbol_string(ref, sym).startswith(FRESH_PREFIX)):
            found.append(z3.z3._to_expr_ref(z3core.Z3_app_to_ast(ref, app), ctx))
    return found


@dataclass
class BitBlastSession:
    """Queries on the assertions of ``source`` (an append-only record: constraints added to
    it after the session started are taken over at the next check)."""

    source: z3.Solver
    usable: bool = True
    why_not: str = ""  # why the session ended
    _solver: z3.Solver | None = None
    _goal: z3.Goal | None = None
    _synced: int = 0
    _named: dict[str, z3.ExprRef] = field(default_factory=dict)  # our name -> the tactic's constant
    _plain: bool | None = None  # whether the source was pure bit-vector at the first ``preferred``

    def preferred(self) -> bool:
        """Whether to ask this session before Bitwuzla: the equation is pure bit-vector as
        it stands. On floats, fpa2bv's circuits make the first query slow (52 s where
        Bitwuzla took 2.3 s); on a heap program without them the session's queries took
        0.23 s each, Bitwuzla's 0.29 s."""
        if self._plain is None:
            self._plain = _pure_bv(list(self.source.assertions()))
        return self.usable and self._plain

    def check(self, assumptions: list[z3.BoolRef], extra: list[z3.BoolRef] | None,
              deadline: float | None, timeout_ms: int | None
              ) -> tuple[z3.CheckSatResult, z3.ModelRef | None] | None:
        """The answer and a model of ``source``'s assertions (sat), or None when this
        query or any query is beyond the session (then it is ``usable`` no longer, except
        for a float in ``extra``, which ends only this query)."""
        if not self.usable or not self._sync():
            return None
        extra = list(extra or [])
        if (extra or any(not z3.is_const(a) for a in assumptions)) and not _pure_bv(extra + assumptions):
            return None
        assert self._solver is not None
        if timeout_ms is not None:
            self._solver.set("timeout", timeout_ms)
        if extra:
            self._solver.push()
            self._solver.add(*extra)
        try:
            r = check_sat(self._solver, assumptions, deadline)
            model = self._model() if r == z3.sat else None
            why = self._solver.reason_unknown() if r == z3.unknown else ""
        finally:
            if extra:
                self._solver.pop()
        if "giveup" in why:  # something the SAT solver does not take: z3 as before
            self._end(why)
            return None
        return r, model

    def reason_unknown(self) -> str:
        return self._solver.reason_unknown() if self._solver is not None else ""

    def _end(self, why: str) -> bool:
        self.usable = False
        self.why_not = why.splitlines()[0] if why else "ended"
        self._solver = None  # its clauses are what a session costs in memory
        return False

    def _sync(self) -> bool:
        assertions = self.source.assertions()
        if self._solver is None:
            return self._start(assertions)
        new = [assertions[i] for i in range(self._synced, len(assertions))]
        self._synced = len(assertions)
        if new:
            if not _pure_bv(new):
                return self._end("a constraint added later is not pure bit-vector")
            self._solver.add(*new)
        return True

    def _start(self, assertions: z3.AstVector) -> bool:
        goal = z3.Goal()
        goal.add(assertions)
        self._synced = len(assertions)
        result = z3.Then(*PREPROCESS)(goal)
        if len(result) != 1:
            return self._end("the preprocessing split the equation")
        sub = result[0]
        if z3.Probe("is-qfbv")(sub) != 1.0:  # e.g. arrays
            return self._end("the equation is not pure bit-vector after preprocessing")
        # The solver's models hide constants named as z3's own: each gets a name of ours.
        pairs = []
        for i, c in enumerate(_fresh_constants(sub)):
            ours = z3.Const(f"bitblast!{i}", c.sort())
            self._named[str(ours)] = c
            pairs.append((c, ours))
        formulas = [sub[i] for i in range(len(sub))]
        if pairs:
            formulas = [z3.substitute(f, *pairs) for f in formulas]
        self._goal = sub
        self._solver = z3.SolverFor("QF_BV")
        # Without the SAT solver's merging of equivalent literals: each one it merged is
        # hidden from every model after a constraint added later (z3 unregisters them one
        # by one, a linear search each: 3 s a model on pv's schedule, 0.06 s without).
        self._solver.set("sat.scc", False)
        self._solver.add(*formulas)
        return True

    def _model(self) -> z3.ModelRef:
        """The SAT solver's model, carried back through the tactics' model converter to
        the equation's constants (floats included)."""
        assert self._solver is not None and self._goal is not None
        sm = self._solver.model()
        m = z3.Model(ctx=sm.ctx)
        for d in sm.decls():
            if d.arity():
                continue  # none after ackermannize_bv
            target = self._named.get(d.name())
            m.update_value(target.decl() if target is not None else d, sm[d])
        return self._goal.convert_model(m)
