"""What a concrete run reports (results, violations, trace steps), its options, and
the exceptions that end a run early: shared by the interpreter, its compiler and the
library models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, BinaryIO

from ..ir.program import SourceLoc
from ..ir.types import CType
from .inputs import InputRecord
from .libspec import Infeasible

ALL_CHECKS = frozenset({"assertion", "error-call", "bounds", "pointer", "div-by-zero"})


# ------------------------------------------------------------------ results


@dataclass
class Violation:
    kind: str
    prop_id: str
    loc: SourceLoc
    message: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "property": self.prop_id, "loc": str(self.loc), "message": self.message}


@dataclass
class TraceStep:
    loc: SourceLoc
    function: str
    lhs: str
    value: Any
    type: CType
    hidden: bool = False
    is_input: bool = False


@dataclass
class CallResult:
    """How one procedure call ended (``Interpreter.call``): "ok" with the returned value
    and the register globals after, or "violation", "infeasible", "exit", "limit"."""

    status: str
    value: Any = None
    globals_out: dict[str, Any] | None = None
    violation: Violation | None = None


@dataclass
class RunResult:
    status: str  # "ok", "violation", "infeasible", "limit"
    exit_code: int | None
    violation: Violation | None
    inputs: list[InputRecord]
    events: list[tuple[str, SourceLoc]]
    decisions: list[tuple[str, bool]]
    steps: int
    trace: list[TraceStep] | None = None
    note: str = ""
    statements: int = 0  # IR statements executed (terminators and calls included)

    @property
    def word(self) -> tuple[str, ...]:
        return tuple(e for e, _ in self.events)


@dataclass
class InterpOptions:
    checks: frozenset[str] = ALL_CHECKS
    record_trace: bool = False
    record_decisions: bool = False
    max_steps: int | None = 50_000_000
    real_io: bool = False  # scanf/getchar/read from the real stdin (tracelearn run)
    stdout: BinaryIO | None = None
    stderr: BinaryIO | None = None
    stdin: BinaryIO | None = None


# ---------------------------------------------------------------- signals


class _Stop(Exception):
    pass


class _Exit(_Stop):
    def __init__(self, code: int | None) -> None:
        self.code = code


class _Violated(_Stop):
    def __init__(self, v: Violation) -> None:
        self.violation = v


# A run the program cannot make (a given input out of its range, an unchecked
# failure): one class with the library models, which raise it too.
_Infeasible = Infeasible  # noqa: F401 (re-exported for the compiler)


class _Limit(_Stop):
    pass

