"""Counterexamples: the trace a solver model picks out of an equation (from either
target: the merged BMC equation or a path's), its values as C values, and its replay
in the interpreter, which every reported violation must pass."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from ..ir.program import Program, SourceLoc
from ..ir.types import ArrayType, CType, FloatType, IntType, PointerType
from ..z3dag import holds
from .equation import Equation, Step
from .inputs import InputSource
from .interpreter import Interpreter, InterpOptions
from .memory import decode



def model_value(model: z3.ModelRef, term: z3.ExprRef, t: CType | None):
    """Python value of ``term`` in ``model`` (ints signed per type, floats, bytes)."""
    v = model.eval(term, model_completion=True)
    if isinstance(t, FloatType):
        if z3.is_true(model.eval(z3.fpIsNaN(term), model_completion=True)):
            return math.nan  # z3 leaves a NaN's bits open: asking for them gave 0.0
        bits = model.eval(z3.fpToIEEEBV(term), model_completion=True).as_long()
        fmt, ifmt = ("<f", "<I") if t.width == 32 else ("<d", "<Q")
        return struct.unpack(fmt, struct.pack(ifmt, bits))[0]
    if z3.is_bv_value(v):
        n = v.as_long()
        if isinstance(t, IntType):
            return t.wrap(n)
        if isinstance(t, PointerType) or t is None:
            return n
        return n.to_bytes(max(t.size, 1), "little")
    if z3.is_true(v):
        return 1
    if z3.is_false(v):
        return 0
    return str(v)


def elements(value, t: CType | None):
    """An array of scalars as the list of its element values (for traces; the bytes
    stay the input's value for replay)."""
    if not (isinstance(value, bytes) and isinstance(t, ArrayType) and isinstance(t.elem, (IntType, FloatType))):
        return value
    n = max(t.elem.size, 1)
    if len(value) != n * (t.length or 0):
        return value
    return [decode(t.elem, value[i:i + n]) for i in range(0, len(value), n)]


def bits_text(value, t: CType | None) -> str:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(t, FloatType):
        ifmt, fmt = ("<I", "<f") if t.width == 32 else ("<Q", "<d")
        n = struct.unpack(ifmt, struct.pack(fmt, value))[0]
        return format(n, f"0{t.width}b")
    if isinstance(t, (IntType, PointerType)):
        return format(value & ((1 << t.width) - 1), f"0{t.width}b")
    return ""


# ---------------------------------------------------------- counterexamples


@dataclass
class CexStep:
    kind: str  # assign | input | call | return | output
    loc: SourceLoc
    function: str
    lhs: str
    value: object
    type: str
    bits: str
    hidden: bool
    name: str = ""

    def to_json(self) -> dict:
        v = self.value.hex() if isinstance(self.value, bytes) else self.value
        return {"kind": self.kind, "file": self.loc.file, "line": self.loc.line, "column": self.loc.col,
                "function": self.function, "lhs": self.lhs, "value": v, "type": self.type,
                "binary": self.bits, "hidden": self.hidden, "ssa": self.name}


@dataclass
class Counterexample:
    kind: str
    prop_id: str
    loc: SourceLoc
    message: str
    function: str
    steps: list[CexStep]
    inputs: list[dict]
    input_values: list
    replay: dict = field(default_factory=dict)
    minimized: str = "none"
    value_sum: int | None = None
    waypoints: list[tuple] | None = None  # a violation witness's, when the strategy that found it read them

    @property
    def length(self) -> int:
        return sum(1 for s in self.steps if s.kind in ("assign", "input") and not s.hidden)

    def to_json(self) -> dict:
        d = {
            "property": self.prop_id, "kind": self.kind, "message": self.message,
            "file": self.loc.file, "line": self.loc.line, "column": self.loc.col, "function": self.function,
            "steps": [s.to_json() for s in self.steps if not s.hidden and s.kind in ("assign", "input")],
            "inputs": self.inputs, "length": self.length, "minimized": self.minimized,
            "replay": self.replay,
        }
        if self.value_sum is not None:
            d["value_sum"] = self.value_sum
        return d


def step_value(model: z3.ModelRef, s: Step) -> tuple[object, str]:
    """The value a step defines in ``model``, and its type's name (a heap block of
    unknown size as its bytes)."""
    if s.kind == "input" and s.type is None and s.extent is not None:
        n = model.eval(s.extent, model_completion=True).as_long()
        return (bytes(model.eval(z3.Select(s.ssa, i), model_completion=True).as_long() for i in range(n)),
                f"unsigned char[{n}]")
    return model_value(model, s.ssa, s.type), str(s.type)


def guard_truth(model: z3.ModelRef) -> Callable[[z3.BoolRef], bool]:
    """Whether a step's guard holds in ``model`` (completed), each guard evaluated once:
    the steps of a path share their guards (a block's steps one guard), and a trace of
    a recursion a hundred levels deep evaluated the same few hundred guards thousands
    of times through z3's wrapper objects."""
    seen: dict[int, bool] = {}

    def true(guard: z3.BoolRef) -> bool:
        key = guard.get_id()  # (the guards live in the equation's steps: an id is not reused)
        got = seen.get(key)
        if got is None:
            got = seen[key] = holds(model, [guard])
        return got
    return true


def input_values(eq: Equation, model: z3.ModelRef) -> list:
    """The inputs of ``model``'s run, in the order the interpreter draws them."""
    true = guard_truth(model)
    return [step_value(model, s)[0] for s in eq.steps if s.kind == "input" and true(s.guard)]


def input_entry(index: int, s: Step, value: object, tname: str) -> dict:
    """One input of a trace, as the JSON documents give it."""
    return {"index": index, "origin": s.message, "file": s.loc.file, "line": s.loc.line, "type": tname,
            "value": value.hex() if isinstance(value, bytes) else value}


def model_inputs(eq: Equation, model: z3.ModelRef) -> list[dict]:
    """The inputs of ``model``'s run as ``input_entry`` gives them."""
    out: list[dict] = []
    true = guard_truth(model)
    for s in eq.steps:
        if s.kind == "input" and true(s.guard):
            value, tname = step_value(model, s)
            out.append(input_entry(len(out), s, value, tname))
    return out


def extract(eq: Equation, model: z3.ModelRef, kinds: frozenset[str] | None = None) -> Counterexample:
    """The trace of ``model``: steps whose guard holds, up to the violated check."""
    steps: list[CexStep] = []
    inputs: list[dict] = []
    values: list = []
    viol: Step | None = None
    true = guard_truth(model)
    for s in eq.steps:
        if not true(s.guard):
            continue
        if s.kind in ("assign", "input", "param"):
            value, tname = step_value(model, s)
            steps.append(CexStep(s.kind, s.loc, s.function, s.lhs, elements(value, s.type), tname,
                                 bits_text(value, s.type), s.hidden, s.name))
            if s.kind == "input":
                values.append(value)
                inputs.append(input_entry(len(inputs), s, value, tname))
        elif s.kind in ("call", "return"):
            steps.append(CexStep(s.kind, s.loc, s.function, s.lhs, None, "", "", True))
        elif s.kind == "check" and s.violation is not None and (kinds is None or s.prop_kind in kinds):
            if z3.is_true(model.eval(s.violation, model_completion=True)):
                viol = s
                break
    if viol is None:
        raise ValueError("the model violates no selected check")
    return Counterexample(viol.prop_kind, viol.prop_id, viol.loc, viol.message, viol.function,
                          steps, inputs, values)


def replay(program: Program, cex: Counterexample, checks: frozenset[str]) -> dict:
    """Run the counterexample's inputs in the interpreter: it must fail the same way."""
    it = Interpreter(program, InterpOptions(checks=checks, max_steps=20_000_000))
    r = it.run(InputSource(list(cex.input_values), seed=0), argv=None)
    ok = r.status == "violation" and r.violation is not None and r.violation.prop_id == cex.prop_id
    detail = (f"{r.status}" + (f": {r.violation.kind} at {r.violation.loc}" if r.violation else "")
              + (f" ({r.note})" if r.note else ""))
    return {"status": "confirmed" if ok else "failed", "interpreter": detail, "steps": r.steps}
