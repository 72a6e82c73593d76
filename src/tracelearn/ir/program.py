"""The program as a goto program: procedures of basic blocks.

A block is straight-line statements plus one terminator. Blocks of a procedure
are kept in source layout order; a jump to a block at or before the current one
is a back edge (a loop), which is how the bounded model checker finds loops.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from .datamodel import DataModel
from .expr import Expr, Reg
from .types import CType, FunctionType


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = SourceLoc("<builtin>", 0, 0)

# The package's own C (library models, bundled headers): never a user-facing location.
_LIBRARY_DIR = str(Path(__file__).resolve().parents[1] / "frontend") + os.sep


def is_library_file(file: str) -> bool:
    return file == NOWHERE.file or os.path.abspath(file).startswith(_LIBRARY_DIR)


@dataclass(frozen=True)
class Mem:
    """An lvalue in memory: ``type`` stored at address ``addr``."""

    addr: Expr
    type: CType


LValue = Union[Reg, Mem]


def _lvalue_exprs(lv: LValue | None) -> tuple[Expr, ...]:
    """What evaluating an lvalue reads: the address of a memory lvalue."""
    return (lv.addr,) if isinstance(lv, Mem) else ()


# ---------------------------------------------------------------- statements


@dataclass
class Assign:
    lhs: LValue
    rhs: Expr
    loc: SourceLoc
    text: str = ""  # the lvalue as written in the source, for traces
    hidden: bool = False  # temporaries introduced by the frontend

    def exprs(self) -> tuple[Expr, ...]:
        return _lvalue_exprs(self.lhs) + (self.rhs,)


@dataclass
class Call:
    """Call of a procedure (``callee``) or through a function pointer (``target``).

    Arguments are already converted to the parameter types. A callee without a
    body is a library function, modelled by the engines."""

    lhs: LValue | None
    callee: str | None
    target: Expr | None
    args: list[Expr]
    loc: SourceLoc
    call_id: str = ""
    text: str = ""

    def exprs(self) -> tuple[Expr, ...]:
        target = (self.target,) if self.target is not None else ()
        return _lvalue_exprs(self.lhs) + target + tuple(self.args)


@dataclass
class Assume:
    cond: Expr
    loc: SourceLoc

    def exprs(self) -> tuple[Expr, ...]:
        return (self.cond,)


# Kinds of checked properties. "assertion" and "error-call" are the user's;
# the others are the engines' runtime checks (each can be switched off).
PROPERTY_KINDS = ("assertion", "error-call", "bounds", "pointer", "div-by-zero", "overflow", "shift", "memleak",
                  "invariant", "candidate")  # invariant: a witness's loop invariant, checked by `validate`;
# candidate: a candidate loop invariant of k-induction (strategies/kinduction.py)


@dataclass
class Assert:
    cond: Expr
    loc: SourceLoc
    prop_id: str
    kind: str = "assertion"
    msg: str = ""
    origin: str = ""  # the built-in that made it: "assert", "_Learn_assert", "reach_error", ...

    def exprs(self) -> tuple[Expr, ...]:
        return (self.cond,)


@dataclass
class Nondet:
    """Assign an unconstrained value (an input of the run)."""

    lhs: LValue
    loc: SourceLoc
    origin: str  # e.g. "__VERIFIER_nondet_int()", "uninitialized x"
    text: str = ""

    def exprs(self) -> tuple[Expr, ...]:
        return _lvalue_exprs(self.lhs)


@dataclass
class Event:
    letter: str
    loc: SourceLoc

    def exprs(self) -> tuple[Expr, ...]:
        return ()


@dataclass
class Alloc:
    """Heap allocation (malloc/calloc): ``lhs`` gets the new object's address."""

    lhs: LValue
    size: Expr
    loc: SourceLoc
    zeroed: bool = False
    site: str = ""
    text: str = ""

    def exprs(self) -> tuple[Expr, ...]:
        return _lvalue_exprs(self.lhs) + (self.size,)


@dataclass
class Free:
    ptr: Expr
    loc: SourceLoc

    def exprs(self) -> tuple[Expr, ...]:
        return (self.ptr,)


Stmt = Union[Assign, Call, Assume, Assert, Nondet, Event, Alloc, Free]


# --------------------------------------------------------------- terminators


@dataclass
class Goto:
    target: int
    loc: SourceLoc

    def exprs(self) -> tuple[Expr, ...]:
        return ()


@dataclass
class Branch:
    """Two-way branch. ``decision_id`` names this branch (stable: file:line:col#k);
    ``source_id`` names the source condition it came from: the branches that a
    short-circuit ``a && b`` becomes share one ``source_id``. ``outcome``: the value of
    the whole source condition when the then / else edge is taken, or None where the
    condition is not decided yet (the next branch of the same condition follows); a
    decision vector over source conditions (Pac-Man) reads its letters from it."""

    cond: Expr
    then: int
    else_: int
    loc: SourceLoc
    decision_id: str = ""
    source_id: str = ""
    text: str = ""
    keyword: SourceLoc | None = None  # the if/while/for/do/?: the condition belongs to
    atomic: bool = False  # the whole source condition (no && || ! split it)
    outcome: tuple[bool | None, bool | None] = (True, False)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.cond,)


@dataclass
class Return:
    value: Expr | None
    loc: SourceLoc

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,) if self.value is not None else ()


@dataclass
class Exit:
    """Program exit: ``exit(code)``, ``abort()``, or the end of a failed check."""

    code: Expr | None
    loc: SourceLoc
    kind: str = "exit"  # "exit" or "abort"

    def exprs(self) -> tuple[Expr, ...]:
        return (self.code,) if self.code is not None else ()


Terminator = Union[Goto, Branch, Return, Exit]


@dataclass
class Block:
    index: int
    stmts: list[Stmt] = field(default_factory=list)
    term: Terminator | None = None
    loc: SourceLoc = NOWHERE
    label: str = ""  # C label or a note such as "while.body"

    def exprs(self) -> list[Expr]:
        """Every expression the block evaluates, its terminator's included. (Each
        statement and terminator class has ``exprs()``: one place to visit them.)"""
        out = [e for st in self.stmts for e in st.exprs()]
        return out + list(self.term.exprs()) if self.term is not None else out

    def successors(self) -> tuple[int, ...]:
        t = self.term
        if isinstance(t, Goto):
            return (t.target,)
        if isinstance(t, Branch):
            return (t.then, t.else_)
        return ()


# ------------------------------------------------------------------ program


@dataclass
class Variable:
    name: str  # unique within its scope
    display: str  # the source name
    type: CType
    in_memory: bool  # address taken, or an aggregate: lives in a memory object
    loc: SourceLoc = NOWHERE
    is_param: bool = False


@dataclass
class Procedure:
    name: str
    type: FunctionType
    params: list[Variable]
    locals: list[Variable]
    blocks: list[Block]
    loc: SourceLoc = NOWHERE

    @property
    def ret_type(self) -> CType:
        return self.type.ret

    def local(self, name: str) -> Variable | None:
        for v in self.params:
            if v.name == name:
                return v
        for v in self.locals:
            if v.name == name:
                return v
        return None


@dataclass
class GlobalVar:
    var: Variable
    init_bytes: bytes | None = None  # constant image; None: zero-filled
    readonly: bool = False  # string literals
    is_string: bool = False


@dataclass
class Program:
    data_model: DataModel
    globals: dict[str, GlobalVar]
    procedures: dict[str, Procedure]
    externs: dict[str, FunctionType]  # declared, called, no body: library models
    entry: str = "main"
    init: str = "__tl_init_globals"  # runs before the entry procedure
    sources: dict[str, list[str]] = field(default_factory=dict)  # file -> lines
    warnings: list[str] = field(default_factory=list)

    def global_var(self, name: str) -> GlobalVar:
        return self.globals[name]

    def source_line(self, file: str, line: int) -> str:
        lines = self.sources.get(file, [])
        return lines[line - 1] if 0 < line <= len(lines) else ""
