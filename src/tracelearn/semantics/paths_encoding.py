"""The bounded program as one equation, built path by path.

``Encoding`` (bmc.py) unwinds the program merged: one walk, states joined where paths
meet. Where paths carry concrete data through long loops (string libraries, heap
structures: jq's ``jv`` values), the merged states turn every load into a case split
over the paths joined there, and every loop needs the global bound. Here the path
strategy runs each path on its own (its branches decided by the solver, its data
concrete where the program's is), loops and recursion bounded as the model checker
bounds them (``PathOptions.loop_bound``), and the equation keeps, for every reachable
check the caller selects, the *prefix* of the path up to that check:

- a selector ``path#j`` (at most one is true);
- the prefix's path condition (the solver frames from the start to the check's), under
  the selector;
- its steps (events, inputs, the check's violation) guarded by the selector.

A model of "some selected check is violated" is one prefix, so the questions the
language-of-error teacher asks of a merged equation (which events, in which order,
before which failing check; the inputs of a witness) mean the same here. Checks shared
by several paths (their common prefix) are kept once.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

import z3

from ..ir.program import Program
from ..bigstack import run_with_big_stack
from .bmc import Encoding, SolverStats
from .equation import Equation, Step
from .strategies.path import PathExplorer, PathOptions
from .symbolic import SemanticsOptions, SymbolicSemantics, SymexLimit
from .targets import PathTarget
from .solving import after_stop, interrupt_main_context

# Steps a prefix keeps: what the teacher and a witness read (assignments are left out:
# a witness is its inputs, and a path may assign millions of times).
_KEPT = frozenset({"event", "input", "param", "call", "return", "output"})


class PathsEncoding(Encoding):
    """Every path of ``program`` within ``bound``, enumerated, as one equation whose
    failing checks are those ``selected`` (a step's ``prop_id``, ``prop_kind``)."""

    def __init__(self, program: Program, bound: int, selected: Callable[[Step], bool],
                 loop_bounds: dict[str, int] | None = None, timeout_s: float | None = None,
                 deadline: float | None = None, semantics: SemanticsOptions | None = None,
                 stats: SolverStats | None = None, max_statements: int = 5_000_000) -> None:
        t0 = time.perf_counter()
        self.program = program
        self.bound = bound
        target = PathTarget(deadline)
        sem = SymbolicSemantics(program, replace(semantics or SemanticsOptions(), name_memory=False), target)
        sem.deadline = deadline
        self.semantics = sem
        self.deadline = deadline
        explorer = PathExplorer(sem, PathOptions(max_decisions=10**9, max_statements=max_statements,
                                                 loop_bound=bound, loop_bounds=dict(loop_bounds or {}),
                                                 fold_constants=True))
        eq = Equation()
        selectors: list[z3.BoolRef] = []
        self.paths = 0
        self.cut_paths = 0
        try:
            run_with_big_stack(lambda: self._explore(explorer, target, selected, eq, selectors),
                               interrupt_main_context)
        except RecursionError:
            raise SymexLimit("program nests calls too deeply for the path strategy") from None
        except BaseException as e:
            after_stop(e)
            raise
        if len(selectors) > 1:
            eq.constraints.append(z3.AtMost(*selectors, 1))
        self.eq = eq
        self._start_solver(timeout_s, stats)
        self.stats.calls += target.calls
        self.stats.encode_time_s += time.perf_counter() - t0

    def _explore(self, explorer: PathExplorer, target: PathTarget, selected: Callable[[Step], bool],
                 eq: Equation, selectors: list[z3.BoolRef]) -> None:
        deadline = self.deadline
        kept: dict[int, Step] = {}  # the checks already taken (their prefix is shared)
        for end in explorer.explore():
            if deadline is not None and time.perf_counter() > deadline:
                raise SymexLimit("timeout while exploring the paths")
            if end.status == "unknown":
                raise SymexLimit(f"the solver could not decide whether a path is feasible ({end.reason})")
            # An infeasible end may still have failed a check on the way (in C's semantics
            # a failed check ends the run: what follows is dead), so its checks are taken.
            self.paths += end.status != "infeasible"
            if end.status in ("unwound", "limit"):
                self.cut_paths += 1
                eq.unwinding_hit = True
                if end.status == "limit":
                    eq.unsupported.append(f"a path was cut after {end.reason}")
            nodes = list(target.nodes)
            found = [(m, si, s) for m, node in enumerate(nodes) for si, s in enumerate(node.steps)
                     if s.kind == "check" and s.violation is not None and selected(s) and id(s) not in kept]
            for m, si, s in found:
                kept[id(s)] = s
                before = [x for n in nodes[:m] for x in n.steps if x.kind in _KEPT] + \
                         [x for x in nodes[m].steps[:si] if x.kind in _KEPT]
                self._prefix(target, nodes, m, s, before, eq, selectors)
            eq.unsupported.extend(u for n in nodes for u in n.unsupported if u not in eq.unsupported)
            eq.approximations.extend(a for n in nodes for a in n.approximations if a not in eq.approximations)

    def _prefix(self, target: PathTarget, nodes: list, m: int, check: Step, before: list[Step], eq: Equation,
                selectors: list[z3.BoolRef]) -> None:
        """Add the prefix ending at ``check`` (in frame ``m`` of the current path)."""
        target.goto(nodes[m])  # the path's own solver, at the check's frame: one incremental call
        r = target.check([check.violation])
        if r == z3.unsat:
            return  # the check cannot fail on this path
        sel = z3.Bool(f"path#{len(selectors)}")
        selectors.append(sel)
        events_fixed = all(z3.is_true(z3.simplify(x.guard)) for x in before if x.kind == "event")
        if r == z3.sat and events_fixed:
            # The prefix's word is fixed and it can fail: a selector, the word, and the
            # inputs of one failing run (the path's own model) are all the teacher needs,
            # none of the path's definitions.
            model = target.model()
            for x in before:
                if x.kind == "input" and x.ssa is not None:
                    eq.steps.append(replace(x, guard=sel, ssa=model.eval(x.ssa, model_completion=True)))
                elif x.kind != "input":
                    eq.steps.append(replace(x, guard=sel))
            eq.steps.append(replace(check, guard=sel, violation=sel))
            return
        cond = [c for n in nodes[:m + 1] for c in n.constraints]
        eq.constraints.append(z3.Implies(sel, z3.And(*cond)) if cond else z3.BoolVal(True))
        for x in before:
            eq.steps.append(replace(x, guard=z3.And(sel, x.guard)))
        eq.steps.append(replace(check, guard=z3.And(sel, check.guard), violation=z3.And(sel, check.violation)))
