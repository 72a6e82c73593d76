"""The guarded SSA equation that symbolic execution produces.

``constraints`` define every SSA symbol and guard; ``steps`` list, in execution
order, what a path may do (assignments, inputs, checks, events, decisions), each
under its guard. A model of the constraints plus one violated check is a
counterexample; the steps whose guard is true in the model are its trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from ..ir.program import SourceLoc
from ..ir.types import CType


@dataclass
class Step:
    kind: str  # assign | input | check | event | decision | call | return | unwind | exit
    guard: z3.BoolRef
    loc: SourceLoc
    function: str
    # assign / input
    lhs: str = ""
    ssa: z3.ExprRef | None = None
    type: CType | None = None
    hidden: bool = False
    name: str = ""  # SSA display name, e.g. "a#2"
    var: str = ""  # the variable (function::name) for assignments to registers
    # check
    cond: z3.BoolRef | None = None
    violation: z3.BoolRef | None = None
    prop_id: str = ""
    prop_kind: str = ""
    message: str = ""
    origin: str = ""
    # event / decision / unwind
    letter: str = ""
    decision_id: str = ""
    source_id: str = ""
    extent: z3.ExprRef | None = None  # byte count of an array-valued input (heap of symbolic size)
    args: list = field(default_factory=list)  # output: the printed values
    call_result: bool = False  # assign: the value a call returned (named "f()#k")
    keyword: SourceLoc | None = None  # decision: location of its if/while/for/?:
    atomic: bool = False  # decision: it is the whole source condition


@dataclass
class Equation:
    constraints: list[z3.BoolRef] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    guards: list[tuple[z3.BoolRef, int]] = field(default_factory=list)  # block guard, statements
    bound: int = 0
    unwinding_hit: bool = False  # some loop or recursion reached the bound
    unsupported: list[str] = field(default_factory=list)  # paths cut: no "true" verdict
    approximations: list[str] = field(default_factory=list)  # over-approximations: "false" needs replay

    def checks(self, kinds: frozenset[str] | None = None) -> list[Step]:
        return [s for s in self.steps if s.kind == "check" and (kinds is None or s.prop_kind in kinds)]

    def unwinds(self) -> list[Step]:
        return [s for s in self.steps if s.kind == "unwind"]

    def size(self) -> int:
        return len(self.constraints)
