"""Targets: where the symbolic semantics sends what it derives (CBMC's
``symex_target``).

The semantics calls ``constrain`` for every definition (an SSA symbol, a guard, a
violation literal) and ``record`` for every step of a path (assignment, input,
check, decision, ...). What happens to them is the target's business:

- ``EquationTarget`` keeps them as the guarded SSA equation of merged bounded model
  checking, asserted into one solver afterwards;
- ``ClauseTarget`` keeps them too, remembering how many definitions each step came
  after, so the Horn-clause strategy can cut a clause body at any check;
- ``PathTarget`` asserts them at once into an incremental solver whose frames follow
  the path: ``push`` at a branching point, ``pop`` back to a shared prefix, so a trie
  of decision sequences is decided with one solver and no re-encoding.

Both expose the same ``Equation`` (``eq``), so counterexample extraction and replay
read either the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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

    def unsupported(self, why: str) -> None:
        self.eq.unsupported.append(why)

    def approximation(self, why: str) -> None:
        self.eq.approximations.append(why)


class ClauseTarget(EquationTarget):
    """Definitions for Horn clause bodies: the strategy slices ``eq.constraints`` per
    clause; ``at[i]`` is how many constraints existed when step ``i`` was recorded
    (a check's clause needs the definitions up to it, not the ones after)."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[int] = []

    def record(self, s: Step) -> int:
        self.at.append(len(self.eq.constraints))
        return super().record(s)


@dataclass(eq=False)
class PathNode:
    """One solver frame of a path: what was derived between two choices. Nodes form a
    tree (each knows its parent), so any point of any path explored can be gone back
    to: pop to the common ancestor, replay the nodes below it."""

    parent: "PathNode | None"
    depth: int
    constraints: list[z3.BoolRef] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    approximations: list[str] = field(default_factory=list)


class PathTarget:
    """One path's condition in an incremental solver, with a frame per choice."""

    def __init__(self, deadline: float | None = None) -> None:
        self.eq = Equation()
        self.solver = z3.Solver()
        self.deadline = deadline
        self.nodes: list[PathNode] = [PathNode(None, 0)]  # the current path, root first
        self.calls = 0  # solver calls made through ``check``

    def constrain(self, c: z3.BoolRef) -> None:
        self.nodes[-1].constraints.append(c)
        self.eq.constraints.append(c)
        self.solver.add(c)

    def record(self, s: Step) -> int:
        self.nodes[-1].steps.append(s)
        self.eq.steps.append(s)
        return len(self.eq.steps)

    def unsupported(self, why: str) -> None:
        self.nodes[-1].unsupported.append(why)
        self.eq.unsupported.append(why)

    def approximation(self, why: str) -> None:
        self.nodes[-1].approximations.append(why)
        self.eq.approximations.append(why)

    @property
    def node(self) -> PathNode:
        return self.nodes[-1]

    def on_path(self, node: PathNode) -> bool:
        return node.depth < len(self.nodes) and self.nodes[node.depth] is node

    def push(self) -> PathNode:
        node = PathNode(self.nodes[-1], len(self.nodes))
        self.nodes.append(node)
        self.solver.push()
        return node

    def goto(self, node: PathNode) -> None:
        """Make ``node`` the current frame: pop to the deepest common ancestor, then
        replay the frames from there down to ``node``."""
        down: list[PathNode] = []
        n: PathNode | None = node
        while n is not None and not self.on_path(n):
            down.append(n)
            n = n.parent
        if n is None:
            raise ValueError("a path node of another target")
        self._pop_to(n.depth)
        for m in reversed(down):
            self.nodes.append(m)
            self.solver.push()
            for c in m.constraints:
                self.solver.add(c)
            self.eq.constraints.extend(m.constraints)
            self.eq.steps.extend(m.steps)
            self.eq.unsupported.extend(m.unsupported)
            self.eq.approximations.extend(m.approximations)

    def _pop_to(self, depth: int) -> None:
        """Drop the frames deeper than ``depth`` (the current node's derivations after
        it are kept in it: a node is complete when the path leaves it)."""
        while len(self.nodes) > depth + 1:
            m = self.nodes.pop()
            self.solver.pop()
            eq = self.eq
            del eq.constraints[len(eq.constraints) - len(m.constraints):]
            del eq.steps[len(eq.steps) - len(m.steps):]
            del eq.unsupported[len(eq.unsupported) - len(m.unsupported):]
            del eq.approximations[len(eq.approximations) - len(m.approximations):]

    def check(self, assumptions: list[z3.BoolRef] | None = None) -> z3.CheckSatResult:
        self.calls += 1
        return check_sat(self.solver, list(assumptions or []), self.deadline)
