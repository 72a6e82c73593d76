"""Targets: where the symbolic semantics sends what it derives (CBMC's
``symex_target``).

The semantics calls ``constrain`` for every definition (an SSA symbol, a guard, a
violation literal) and ``record`` for every step of a path (assignment, input,
check, decision, ...). What happens to them is the target's business:

- ``EquationTarget`` keeps them as the guarded SSA equation of merged bounded model
  checking, asserted into one solver afterwards;
- ``PathTarget`` asserts them at once into an incremental solver whose frames follow
  the path: ``push`` at a branching point, ``pop`` back to a shared prefix, so a trie
  of decision sequences is decided with one solver and no re-encoding.

Both expose the same ``Equation`` (``eq``), so counterexample extraction and replay
read either the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from .equation import Equation, Step
from .solving import check_sat


class EquationTarget:
    """The whole unwound program as one guarded SSA equation."""

    def __init__(self, bound: int = 0) -> None:
        self.eq = Equation(bound=bound)

    def constrain(self, c: z3.BoolRef) -> None:
        self.eq.constraints.append(c)

    def record(self, s: Step) -> int:
        self.eq.steps.append(s)
        return len(self.eq.steps)


@dataclass
class _Mark:
    constraints: int
    steps: int
    guards: int
    unsupported: int
    approximations: int


class PathTarget:
    """One path's condition in an incremental solver, with frames for its prefixes."""

    def __init__(self, deadline: float | None = None) -> None:
        self.eq = Equation()
        self.solver = z3.Solver()
        self.deadline = deadline
        self.marks: list[_Mark] = []
        self.calls = 0  # solver calls made through ``check``

    def constrain(self, c: z3.BoolRef) -> None:
        self.eq.constraints.append(c)
        self.solver.add(c)

    def record(self, s: Step) -> int:
        self.eq.steps.append(s)
        return len(self.eq.steps)

    @property
    def depth(self) -> int:
        return len(self.marks)

    def push(self) -> None:
        eq = self.eq
        self.marks.append(_Mark(len(eq.constraints), len(eq.steps), len(eq.guards),
                                len(eq.unsupported), len(eq.approximations)))
        self.solver.push()

    def pop(self, to_depth: int) -> None:
        """Back to the state of ``to_depth`` pushes: what came after is forgotten."""
        if to_depth >= len(self.marks):
            return
        m = self.marks[to_depth]
        eq = self.eq
        del eq.constraints[m.constraints:], eq.steps[m.steps:], eq.guards[m.guards:]
        del eq.unsupported[m.unsupported:], eq.approximations[m.approximations:]
        self.solver.pop(len(self.marks) - to_depth)
        del self.marks[to_depth:]

    def check(self, assumptions: list[z3.BoolRef] | None = None) -> z3.CheckSatResult:
        self.calls += 1
        return check_sat(self.solver, list(assumptions or []), self.deadline)
