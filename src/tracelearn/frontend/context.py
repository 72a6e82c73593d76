"""Per-procedure state of the lowering: CFG, locals, labels, loop targets."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..ir.expr import Reg
from ..ir.program import SourceLoc, Variable
from ..ir.types import CType
from .cfg import CFGBuilder


@dataclass
class SwitchContext:
    cases: dict[int, int]  # id(case AST node) -> block
    exit: int


@dataclass
class FunctionContext:
    name: str
    ret_type: CType
    addr_taken: set[str]
    cfg: CFGBuilder = field(default_factory=CFGBuilder)
    params: list[Variable] = field(default_factory=list)
    locals: list[Variable] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    breaks: list[int] = field(default_factory=list)
    continues: list[int] = field(default_factory=list)
    switches: list[SwitchContext] = field(default_factory=list)
    used_names: Counter = field(default_factory=Counter)
    temps: int = 0
    ids: Counter = field(default_factory=Counter)  # stable per-location indices

    @staticmethod
    def is_temp(name: str) -> bool:
        """A temporary of the lowering: assigned once, so it can stand for its value."""
        return name.startswith("__") and "~" in name

    def unique(self, name: str) -> str:
        n = self.used_names[name]
        self.used_names[name] += 1
        return name if n == 0 else f"{name}.{n}"

    def new_temp(self, t: CType, loc: SourceLoc, hint: str = "tmp") -> Reg:
        self.temps += 1
        # "~" is not in C identifiers: no user variable (``__tmp1`` is legal C) has this name
        name = f"__{hint}~{self.temps}"
        self.locals.append(Variable(name, hint, t, False, loc))
        return Reg(name, t, "local")

    def stable_id(self, loc: SourceLoc, kind: str) -> str:
        """``file:line:col`` plus an index when several items share a location."""
        key = f"{loc}:{kind}"
        k = self.ids[key]
        self.ids[key] += 1
        return str(loc) if k == 0 else f"{loc}#{k}"

    def snapshot(self) -> tuple:
        return (len(self.locals), self.temps, self.cfg, dict(self.ids), Counter(self.used_names))

    def restore(self, snap: tuple) -> None:
        n, temps, cfg, ids, used = snap
        del self.locals[n:]
        self.temps = temps
        self.cfg = cfg
        self.ids = Counter(ids)
        self.used_names = used
