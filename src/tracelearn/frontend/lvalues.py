"""Lvalues during lowering: where a C object designator lives."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.expr import Expr, Reg
from ..ir.program import SourceLoc
from ..ir.types import CType, Field


@dataclass
class BoundsCheck:
    """``index < length`` must hold when the element is accessed (not for ``&a[n]``)."""

    index: Expr  # already converted to an unsigned type of pointer width
    length: int
    loc: SourceLoc
    text: str


@dataclass
class LVReg:
    reg: Reg
    text: str

    @property
    def type(self) -> CType:
        return self.reg.type


@dataclass
class LVMem:
    addr: Expr
    type: CType
    text: str
    bitfield: Field | None = None
    checks: list[BoundsCheck] = field(default_factory=list)
    # A struct's last member declared `T x[1]` or `T x[0]`: the pre-C99 flexible array
    # (dtoa's Bigint, ...), which gcc indexes past its declared length; only the
    # object's own bounds (the pointer check) limit it.
    flexible: bool = False


@dataclass
class LVFunc:
    """A function designator."""

    name: str | None  # direct name, or None for ``*fp``
    addr: Expr
    type: CType  # FunctionType
    text: str


LV = LVReg | LVMem | LVFunc
