"""Feasibility questions on the cone of influence of what is asked.

The equation is a list of definitions (``sym == term``, each SSA symbol defined once,
in order, from symbols defined before it) and domain constraints on single inputs
(a pointer input is null or invalid, a ``_Bool`` input is 0 or 1). Any values of the
symbols a question reaches through definitions extend to a model of the whole
equation: the other symbols are computed from their definitions, the other inputs
take any value of their domain. So ``constraints and guard`` is satisfiable exactly
when ``guard`` and the definitions it reaches are: a pruning query needs only those.
The unwinding asks one such question at every recursive call and loop iteration; on
the whole equation each cost more as the equation grew (a recursive SV-COMP task at
bound 128: 4.1 s in 258 satisfiable queries, each modelling every value of the run).

A constraint of any other shape is always asserted (with its own cone), so the
answers stay exact whatever the semantics adds later.

Most of the questions are satisfiable, and the unwinding asks them one level deeper
each time. The last model often answers the next question already: it is extended
through the new definitions (each new symbol gets its definition's value) and the
guard evaluated in it; the solver is asked only when that fails. A model that does
not satisfy a new domain constraint is dropped. (An extension can only ever say
"satisfiable" with a model of every constraint asserted, so no path is pruned that
the solver would keep.)
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Callable

import z3
from z3 import z3core as C

from ..z3dag import define_fresh, defined_symbol, holds, leaves
from .bitwuzla_backend import BitwuzlaWorker, Portable, check_bitwuzla, settled
from .solving import QuickShare, check_fresh


# The incremental solver's time for a question before Bitwuzla or a fresh solver is
# asked (``QuickShare``: less after one it did not answer).
INCREMENTAL_S = 0.25
INCREMENTAL_AFTER_MISS_S = 0.1


class ConeSolver:
    """An incremental solver that holds only the definitions its questions reach."""

    def __init__(self, bitwuzla: BitwuzlaWorker | None = None, stop: Callable[[], bool] | None = None) -> None:
        """``bitwuzla``: asked before a fresh z3 solver (None: z3 alone); ``stop``: true
        ends its wait (another strategy of a portfolio answered)."""
        self.solver = z3.Solver()
        self.bitwuzla = bitwuzla
        self.stop = stop
        self.portable = Portable()  # the cone as Bitwuzla reads it, translated once
        self.defs: dict[int, tuple[int, z3.BoolRef]] = {}  # symbol's AST id -> (position, definition)
        self.sides: dict[int, list[z3.BoolRef]] = defaultdict(list)  # input's AST id -> domain constraints
        self.visited: set[int] = set()  # AST ids whose definitions are asserted already
        self.indexed = 0  # constraints of the equation looked at so far
        self.asserted = 0  # constraints asserted (for the statistics)
        self.kept: list[z3.BoolRef] = []  # what ``solver`` holds (read back from z3, slow)
        self.quick = QuickShare(INCREMENTAL_S, INCREMENTAL_AFTER_MISS_S)
        # the guards asked about: a freed AST's id can be reused by a new term, which
        # ``visited`` would then skip
        self.asked: list[z3.BoolRef] = []
        self.model: z3.ModelRef | None = None  # of every constraint asserted, when known
        self.fresh: list[tuple[int, z3.BoolRef]] = []  # asserted since the model: (position, constraint)
        self.calls = 0  # questions the solver answered
        self.model_answers = 0  # questions the extended model answered without the solver
        self.fresh_calls = 0  # questions a fresh solver answered after the incremental one gave up
        self.bitwuzla_calls = 0  # questions Bitwuzla answered after the incremental solver gave up

    def index(self, constraints: list[z3.BoolRef]) -> None:
        """Look at the equation's constraints added since the last call."""
        for pos, c in enumerate(constraints[self.indexed:], self.indexed):
            key = defined_symbol(c)
            if key is not None:
                if key not in self.defs and key not in self.visited:
                    self.defs[key] = (pos, c)
                    # a domain constraint stated before the definition no longer rides alone
                    for side in self.sides.pop(key, []):
                        self._assert(pos, side)
                    continue
            only = _single_input(c)
            if only is not None and only not in self.defs and only not in self.visited:
                self.sides[only].append(c)
            else:
                self._assert(pos, c)
        self.indexed = len(constraints)

    def check(self, guard: z3.BoolRef, deadline: float | None) -> z3.CheckSatResult:
        """Is ``guard`` satisfiable together with the whole equation indexed so far?"""
        self.asked.append(guard)
        self._reach(guard)
        if self._extend_model() and z3.is_true(self.model.eval(guard, model_completion=True)):
            self.model_answers += 1
            return z3.sat
        self.calls += 1
        r, model, final = self.quick.ask(self.solver, [guard], deadline)
        if not final:
            t0 = time.perf_counter()
            r, model = self._second(guard, deadline)
            if r != z3.unknown:
                self.quick.elsewhere(time.perf_counter() - t0)
        if model is not None:
            self.model = model
        # (unsat or unknown: the extended model is still one of the constraints)
        return r

    def _second(self, guard: z3.BoolRef, deadline: float | None) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        """The question the incremental solver did not answer in its share: to Bitwuzla,
        else to a fresh z3 solver. (z3 answers a check under assumptions with its
        incremental core, without the preprocessing of a solver's first check: on a program
        of heap lists and floats, a pruning query took 4-6 s there against 2-3 s
        on a fresh solver, and 0.3-0.7 s in Bitwuzla.)"""
        assertions = self.kept + [guard]
        # (a model of Bitwuzla's not completed: a sat without one only asks the next
        # question of a solver again)
        out = None if self.bitwuzla is None else check_bitwuzla(self.bitwuzla, assertions, deadline, self.stop,
                                                                self.portable, len(self.kept), complete=False)
        if settled(out):
            self.bitwuzla_calls += 1
            return out[0], out[1]
        self.fresh_calls += 1
        r, model, _ = check_fresh(assertions, [], deadline)
        return r, model

    def _extend_model(self) -> bool:
        """Extend the last model through the constraints asserted since; False (and no
        model) when one of them does not hold in it."""
        model, fresh = self.model, sorted(self.fresh, key=lambda pc: pc[0])
        self.fresh.clear()
        if model is None:
            return False
        try:
            if holds(model, define_fresh(model, [c for _, c in fresh])):
                return True
        except z3.Z3Exception:  # a value z3 cannot put into a model: ask the solver
            pass
        self.model = None
        return False

    def _assert(self, pos: int, c: z3.BoolRef) -> None:
        self._hold(c)
        self.fresh.append((pos, c))
        self._reach(c)

    def _hold(self, c: z3.BoolRef) -> None:
        self.solver.add(c)
        self.kept.append(c)
        self.asserted += 1

    def _reach(self, term: z3.ExprRef) -> None:
        """Assert the definitions (and domain constraints) of every symbol in ``term``,
        transitively."""
        ctx = term.ctx_ref()
        stack = [term.as_ast()]
        for key, leaf in leaves(ctx, stack, self.visited):
            if leaf is None:
                continue
            d = self.defs.pop(key, None)
            if d is not None:
                self._hold(d[1])
                self.fresh.append(d)
                stack.append(d[1].arg(1).as_ast())  # walked on by the same generator
            for side in self.sides.pop(key, []):
                self._hold(side)
                self.fresh.append((d[0] if d is not None else -1, side))


def _single_input(c: z3.BoolRef) -> int | None:
    """The AST id of the one symbol in ``c`` (a domain constraint), else None."""
    found = None
    ctx = c.ctx_ref()
    for key, leaf in leaves(ctx, [c.as_ast()], set()):
        if leaf is None:
            return None  # a quantifier or a bound variable: not a domain constraint
        if C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, leaf)) == z3.Z3_OP_UNINTERPRETED:
            if found is not None:
                return None
            found = key
    return found
