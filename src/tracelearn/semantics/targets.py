"""Targets: where the symbolic semantics sends what it derives (CBMC's
``symex_target``).

The semantics calls ``constrain`` for every definition (an SSA symbol, a guard, a
violation literal) and ``record`` for every step of a path (assignment, input,
check, decision, ...). What happens to them is the target's business:

- ``EquationTarget`` keeps them as the guarded SSA equation of merged bounded model
  checking, asserted into one solver afterwards;
- ``ClauseTarget`` keeps them too, remembering how many definitions each step came
  after, so the Horn-clause strategy can cut a clause body at any check;
- ``PathTarget`` keeps them in a tree of frames that follows the paths: a frame per
  branching point, back to a shared prefix by moving up the tree. An incremental
  solver is brought to the current frame when a question is asked (push and pop
  only then: a path followed without questions costs no solver work), so a trie of
  decision sequences is decided with one solver and no re-encoding; the last model
  answers a question its path's new constraints hold in, with no solver call.

Both expose the same ``Equation`` (``eq``), so counterexample extraction and replay
read either the same way.
"""

from __future__ import annotations

import random

from dataclasses import dataclass, field

import z3

from ..z3dag import assert_all, define_fresh, holds
from .equation import Equation, Step
from .intervals import WrapCheck
from .linear import LinearRelaxation
from .solving import check_bounded, check_sat


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
    # How many of its constraints this node had when the path's condition down to it
    # was found satisfiable (-1: never).
    sat_with: int = -1
    children: int = 0  # frames pushed below it

    @property
    def known_sat(self) -> bool:
        n: PathNode | None = self
        while n is not None:
            if n.sat_with == len(n.constraints):
                return True
            if n.constraints:
                return False
            n = n.parent  # a node that adds nothing is as satisfiable as its parent
        return False


# A solver frame every this many nodes: going back to a shallower node pops at most
# the frames below it and adds again at most this many nodes' constraints (a frame
# per node made every question costly: z3's push is ~10x an assertion).
FRAME_NODES = 32
# A question with a resource budget is read over the integers first (``linear.py``);
# left without a model there, it gets 1/QUICK_SHARE of the budget on the bit vectors
# (none when the integer reading refuted it and ``wrapping`` is off), and the rest
# only when the integer reading did not refute it (a hard question whose every
# bit-vector model wraps around is rare where CREST's integer flips work)
QUICK_SHARE = 50
# z3's resource count a question without a budget gets in the calling thread before it
# is asked again with a helper thread and the time limit alone (a path's questions are
# mostly small: a filter's big steps and a membership word's are ~10^4 each)
INLINE_RLIMIT = 500_000


class PathTarget:
    """One path's condition, with a frame per choice, and an incremental solver
    brought to the current frame at each question."""

    def __init__(self, deadline: float | None = None, rlimit: int | None = None, wrapping: bool = True,
                 inline_rlimit: int | None = None) -> None:
        self.eq = Equation()
        # Without a budget: each question asked first in this thread with this much of
        # z3's resource count, then (unknown) with a helper thread and the time limit
        # alone. A filter's big steps ask hundreds of tiny questions; a helper thread
        # for each cost 0.34 of javascript_escape's 1.95 s of exploration.
        self.inline_rlimit = inline_rlimit
        self.solver = z3.Solver()
        self.deadline = deadline
        # z3's resource count allowed each question (``unknown`` past it): an effort
        # bound whose answers do not depend on the machine's load, as a time limit's do.
        self.rlimit = rlimit
        # With a budget: does a question the integer reading refutes go on to the bit
        # vectors (whose models may wrap around)? Off, it is unknown at once, as CREST,
        # which solved its flips over the integers only, never made such a flip.
        self.wrapping = wrapping
        if rlimit is not None:
            self.solver.set("rlimit", rlimit)
        # With a budget, the integer reading, asked first
        self.linear = LinearRelaxation() if rlimit is not None else None
        # With it, when an integer refutation is the bit vectors' too
        self.wrap_check = WrapCheck() if rlimit is not None else None
        self.nodes: list[PathNode] = [PathNode(None, 0)]  # the current path, root first
        self.calls = 0  # solver calls made through ``check``
        self.refuted_without_wrapping = 0  # integer refutations bounds propagation showed final
        # What the solver holds: the first nodes of a path, how many of each node's
        # constraints, and where each of its frames begins (a frame holds the nodes
        # from its mark to the next).
        self._synced: list[PathNode] = [self.nodes[0]]
        self._added: list[int] = [0]
        self._marks: list[int] = []
        self._answered: tuple[PathNode, int, z3.CheckSatResult] | None = None  # the last sat/unsat
        # The last model found, and the node (with its constraint count) it is a model
        # of: a deeper question whose new constraints it satisfies is answered by it.
        self._model: tuple[PathNode, int, z3.ModelRef] | None = None
        self.by_model = 0  # questions answered so, no solver call
        self.epoch = 0  # constraints added to frames with children so far

    def constrain(self, c: z3.BoolRef) -> None:
        node = self.nodes[-1]
        node.constraints.append(c)
        self.eq.constraints.append(c)
        if node.children:
            # A frame paths below it already went through (a point gone back to and run
            # on): what was known of those paths (last answer, model, caches) is stale.
            self.epoch += 1
            self._answered = self._model = None

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
        self.nodes[-1].children += 1
        node = PathNode(self.nodes[-1], len(self.nodes))
        self.nodes.append(node)
        return node

    def aim(self, seed: int | None, points: tuple[int, ...] = ()) -> None:
        """Aim the integer reading's solutions at random points drawn from ``seed``, half
        of them near ``points`` when there are some (``LinearRelaxation.rng``; None: the
        solver's first solutions)."""
        if self.linear is not None:
            self.linear.rng = None if seed is None else random.Random(seed)
            self.linear.points = points

    def fresh_solver(self) -> None:
        """Go on with a new solver (no learned clauses, no history: its answers depend
        on the questions only). The tree of frames is kept."""
        self.solver = z3.Solver()
        if self.rlimit is not None:
            self.solver.set("rlimit", self.rlimit)
        self._synced, self._added, self._marks = [self.nodes[0]], [0], []
        self._answered = self._model = None
        if self.linear is not None:
            self.linear.forget()

    def _sync(self) -> None:
        """Bring the solver to the current path."""
        nodes, synced, added, marks = self.nodes, self._synced, self._added, self._marks
        p = 0
        while p < len(synced) and p < len(nodes) and synced[p] is nodes[p]:
            p += 1
        # Only the current node takes constraints, so of the shared nodes only the
        # deepest can have some the solver lacks; if another has, go back to it.
        for i in range(p):
            if added[i] != len(nodes[i].constraints):
                p = i + 1
                break
        while len(synced) > p and marks:
            m = marks.pop()
            self.solver.pop()
            del synced[m:], added[m:]
        if len(synced) > p:  # the root's level itself is stale: start over
            self.solver.reset()
            synced[:], added[:] = [nodes[0]], [0]
        q = len(synced)
        if q == p:
            cs = nodes[q - 1].constraints
            assert_all(self.solver, cs[added[q - 1]:])
            added[q - 1] = len(cs)
        for i in range(q, len(nodes)):
            if i == q or i % FRAME_NODES == 0:
                marks.append(i)
                self.solver.push()
            n = nodes[i]
            assert_all(self.solver, n.constraints)
            synced.append(n)
            added.append(len(n.constraints))

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
            self.eq.constraints.extend(m.constraints)
            self.eq.steps.extend(m.steps)
            self.eq.unsupported.extend(m.unsupported)
            self.eq.approximations.extend(m.approximations)

    def _pop_to(self, depth: int) -> None:
        """Drop the frames deeper than ``depth`` (the current node's derivations after
        it are kept in it: a node is complete when the path leaves it)."""
        while len(self.nodes) > depth + 1:
            m = self.nodes.pop()
            eq = self.eq
            del eq.constraints[len(eq.constraints) - len(m.constraints):]
            del eq.steps[len(eq.steps) - len(m.steps):]
            del eq.unsupported[len(eq.unsupported) - len(m.unsupported):]
            del eq.approximations[len(eq.approximations) - len(m.approximations):]

    def check(self, assumptions: list[z3.BoolRef] | None = None) -> z3.CheckSatResult:
        """Is the current path's condition (and ``assumptions``) satisfiable? Asked
        again with nothing added since, the last answer (and model) stands; a path
        going on from the last model's whose new constraints that model satisfies is
        satisfiable without a solver call (KLEE's counterexample cache, for one path:
        following a run's own decisions asks nothing)."""
        node = self.nodes[-1]
        a = self._answered
        if not assumptions and a is not None and a[0] is node and a[1] == len(node.constraints):
            return a[2]
        if self._model_holds(list(assumptions or [])):
            self.by_model += 1
            r = z3.sat
        else:
            self.calls += 1
            r, model = self._solve(list(assumptions or []))
            if r == z3.sat:
                self._model = (node, len(node.constraints), model if model is not None else self.solver.model())
        self._answered = (node, len(node.constraints), r) if not assumptions and r != z3.unknown else None
        if r == z3.sat:
            for n in reversed(self.nodes):  # a model of the path is one of each prefix
                if n.known_sat and n is not node:
                    break
                n.sat_with = len(n.constraints)
        return r

    def _solve(self, assumptions: list[z3.BoolRef]) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        """The answer, and a model when it is not the solver's own."""
        if self.linear is None or self.rlimit is None:
            self._sync()
            if self.inline_rlimit is not None:
                self.solver.set("rlimit", self.inline_rlimit)
                try:
                    r = check_bounded(self.solver, assumptions, self.deadline)
                finally:
                    self.solver.set("rlimit", 0)  # none
                if r != z3.unknown:
                    return r, None
            return check_sat(self.solver, assumptions, self.deadline), None
        # With a budget (the sampler's flips), the integer reading first, as CREST's
        # flips were solved: a solution that is a bit-vector model too spares the
        # bit-blasting of the path, which arithmetic chains make the costly part
        formulas = self.eq.constraints + assumptions
        early, model = self.linear.solve(formulas, self.deadline)
        if model is not None:
            return z3.sat, model
        if early == z3.unsat and not self.wrapping:
            return z3.unknown, None
        if early == z3.unsat and self._refuted_without_wrapping(formulas):
            self.refuted_without_wrapping += 1
            return z3.unsat, None
        self._sync()
        # (both asked in this thread: the budget keeps them short)
        self.solver.set("rlimit", max(1, self.rlimit // QUICK_SHARE))
        try:
            r = check_bounded(self.solver, assumptions, self.deadline)
        finally:
            self.solver.set("rlimit", self.rlimit)
        if r != z3.unknown or early == z3.unsat:
            # Hard for the bit vectors and refuted over the integers: the question stays
            # unknown (not unsat: a model may wrap around)
            return r, None
        return check_bounded(self.solver, assumptions, self.deadline), None

    def _refuted_without_wrapping(self, formulas: list[z3.BoolRef]) -> bool:
        """Is the integer reading's refutation of ``formulas`` the bit vectors' too? It
        is when no term of theirs can wrap around (every bit-vector model is then one of
        the reading), or when the formulas where one may (z3 writes ``61m == 60n`` as
        ``m == c*n``, c the inverse of 61 modulo 2^32, under a negation: no bound holds
        it in range) can be left out and the rest is refuted so."""
        assert self.linear is not None and self.wrap_check is not None
        suspects = self.wrap_check.suspects(formulas)
        if not suspects:
            return True
        if len(suspects) == len(formulas):
            return False
        out = set(suspects)
        rest = [f for i, f in enumerate(formulas) if i not in out]
        return not self.wrap_check.suspects(rest) and self.linear.solve(rest, self.deadline)[0] == z3.unsat

    def model(self) -> z3.ModelRef:
        """A model of the path (and assumptions) of the last ``sat`` answer."""
        assert self._model is not None, "no satisfiable question asked yet"
        return self._model[2]

    def _model_holds(self, assumptions: list[z3.BoolRef]) -> bool:
        """Does the last model satisfy the current path (and ``assumptions``)? It does
        the path down to its own node; only what came after is evaluated (completing
        the model: an input not seen by the solver yet gets a value, kept)."""
        if self._model is None:
            return False
        at, count, model = self._model
        if not self.on_path(at):
            return False
        new = at.constraints[count:] + [c for n in self.nodes[at.depth + 1:] for c in n.constraints]
        try:
            # A symbol the path defined since (a check's violation: the semantics name
            # each one afresh) takes its term's value: a failing run's path was asked of
            # the solver again only because completion had made its violation false
            new = define_fresh(model, new) + assumptions
        except z3.Z3Exception:
            return False
        # Newest first: a sampler's flip negates the last decision of the run the last
        # model drove, so that one fails, and it alone is evaluated
        new.reverse()
        if not holds(model, new):
            return False
        node = self.nodes[-1]
        self._model = (node, len(node.constraints), model)
        return True
