"""The interpreter's compiler: IR procedures -> Python code, once per procedure.

Each segment of a block (straight-line statements up to a call or the terminator)
becomes one Python function generated as source, with expressions inline (``r`` is
the frame, ``G`` the register globals): a statement costs a line of Python rather
than a tree of closure calls. What has no inline form (memory, inputs, library
work, traces) is a closure from ``_Compiler`` that the generated code calls, so the
meaning of each IR node is written once, in ``_Compiler``; ``_Source`` only inlines
the plain arithmetic, comparisons and register moves.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable

from ..ir import concrete
from ..ir.expr import AddrOf, Binary, Cast, Const, Expr, Load, Reg, Unary
from ..ir.program import (
    Alloc, Assert, Assign, Assume, Branch, Call, Event, Exit, Free, Goto, Mem, Nondet,
    Procedure, Return, SourceLoc, is_library_file,
)
from ..ir.types import ArrayType, CType, FloatType, IntType, PointerType
from ..ir.values import round_f32
from ..ir.visitor import IRVisitor
from .memory import FREE_NOT_HEAP, FREE_TWICE, MemObject, MemoryFault, encode
from .runs import TraceStep, Violation, _Exit, _Infeasible, _Violated

if TYPE_CHECKING:
    from .interpreter import Interpreter

RET = 0  # frame slot of the return value


@dataclass
class CCall:
    """The call ending a segment; the segment's function returns its arguments."""

    callee: str | None  # None: through a function pointer, ``target``
    target: Callable | None
    set: Callable | None  # stores the result
    stmt: Call
    defined: bool = False  # the callee has a body (else a library model runs it)
    proc: CProc | None = None  # the compiled callee, once known


@dataclass
class CSeg:
    """Straight-line statements ending in a call or in the block's terminator.
    ``run(r)`` executes them all and returns the next block (-1: return from the
    procedure) or, for a segment ending in ``call``, the call's argument values."""

    run: Callable[[list], Any]
    call: CCall | None = None
    size: int = 0  # IR statements (calls and terminators included) the segment executes


@dataclass
class CProc:
    proc: Procedure
    nslots: int
    slots: dict[str, int]
    params: list[tuple[int, CType]]
    mem_locals: list[tuple[int, str, int, int]]  # slot, name, size, align
    segs: list[CSeg] = field(default_factory=list)  # all blocks' segments, in order
    starts: list[int] = field(default_factory=list)  # index in ``segs`` of each block's first
    blank: list = field(default_factory=list)  # the frame's slots after the parameters

    @cached_property
    def library(self) -> bool:  # asked at every call: the path test once per procedure
        return is_library_file(self.proc.loc.file)


def _zero(t: CType):
    if isinstance(t, FloatType):
        return 0.0
    if isinstance(t, (IntType, PointerType)):
        return 0
    return bytes(t.size)


class _Compiler(IRVisitor):
    """IR -> closures for one procedure."""

    def __init__(self, interp: Interpreter, cp: CProc) -> None:
        self.it = interp
        self.cp = cp
        self.proc = cp.proc.name

    # --------------------------------------------------------- expressions

    def expr(self, e: Expr) -> Callable:
        return self.visit(e)

    def visit_Const(self, e: Const) -> Callable:
        v = e.value if e.type.is_scalar() else bytes(e.type.size)
        return lambda r: v

    def visit_Reg(self, e: Reg) -> Callable:
        it = self.it
        if e.scope == "local":
            i = self.cp.slots[e.name]
            return lambda r: r[i]
        gi = it.gslots[e.name]
        return lambda r: it.G[gi]

    def visit_AddrOf(self, e: AddrOf) -> Callable:
        it = self.it
        if e.scope == "local":
            i = self.cp.slots[e.name]
            return lambda r: r[i]
        if e.scope == "function":
            a = it.layout.functions[e.name]
            return lambda r: a
        a = it.layout.bases[e.name]
        return lambda r: a

    def visit_Load(self, e: Load) -> Callable:
        return self.load(e.type, self.expr(e.addr), e)

    def visit_Binary(self, e: Binary) -> Callable:
        return self.binary(e)

    def visit_Unary(self, e: Unary) -> Callable:
        fa = self.expr(e.a)
        t = e.type
        op = e.op
        if isinstance(t, FloatType):
            return lambda r: -fa(r)
        assert isinstance(t, IntType)
        w = _wrapper(t)
        if op == "neg":
            return lambda r: w(-fa(r))
        return lambda r: w(~fa(r))

    def visit_Cast(self, e: Cast) -> Callable:
        return self.cast(e)

    def load(self, t: CType, fa: Callable, e: Expr) -> Callable:
        rd = self.reader(t)
        return lambda r: rd(fa(r))

    def reader(self, t: CType) -> Callable[[int], Any]:
        """``f(address)``: the value of type ``t`` stored there (checked access)."""
        n = t.size
        loc = self.cur_loc
        it = self.it

        def read(a):
            try:
                o, off = it.mem.find(a, n)
            except MemoryFault as ex:
                it.fault(ex, loc)
            return o.data[off:off + n]

        if isinstance(t, IntType):
            signed = t.signed
            return lambda a: int.from_bytes(read(a), "little", signed=signed)
        if isinstance(t, PointerType):
            return lambda a: int.from_bytes(read(a), "little")
        if isinstance(t, FloatType):
            unpack = struct.Struct("<f" if t.width == 32 else "<d").unpack
            return lambda a: unpack(read(a))[0]
        return lambda a: bytes(read(a))

    def binary(self, e: Binary) -> Callable:
        fa, fb = self.expr(e.a), self.expr(e.b)
        op, t = e.op, e.type
        if op in ("eq", "ne", "lt", "le", "gt", "ge"):
            return {
                "eq": lambda r: 1 if fa(r) == fb(r) else 0,
                "ne": lambda r: 1 if fa(r) != fb(r) else 0,
                "lt": lambda r: 1 if fa(r) < fb(r) else 0,
                "le": lambda r: 1 if fa(r) <= fb(r) else 0,
                "gt": lambda r: 1 if fa(r) > fb(r) else 0,
                "ge": lambda r: 1 if fa(r) >= fb(r) else 0,
            }[op]
        if isinstance(t, (IntType, PointerType)):
            w = _wrapper(t)
            if op == "add":
                return lambda r: w(fa(r) + fb(r))
            if op == "sub":
                return lambda r: w(fa(r) - fb(r))
            if op == "mul":
                return lambda r: w(fa(r) * fb(r))
            if op == "and":
                return lambda r: w(fa(r) & fb(r))
            if op == "or":
                return lambda r: w(fa(r) | fb(r))
            if op == "xor":
                return lambda r: w(fa(r) ^ fb(r))
        if isinstance(t, FloatType) and t.width == 64 and op in ("add", "sub", "mul"):
            if op == "add":
                return lambda r: fa(r) + fb(r)
            if op == "sub":
                return lambda r: fa(r) - fb(r)
            return lambda r: fa(r) * fb(r)
        f = self.operator(e)
        return lambda r: f(fa(r), fb(r))

    def operator(self, e: Binary) -> Callable[[Any, Any], Any]:
        """``f(a, b)``: the operator of ``e`` on two values (the general case)."""
        op, t, optype = e.op, e.type, e.optype
        loc = self.cur_loc

        def apply(a, b):
            try:
                return concrete.binary(op, t, a, b, optype)
            except ZeroDivisionError:
                # Unchecked division by zero: undefined, the path is not followed.
                raise _Infeasible(f"division by zero at {loc}") from None

        return apply

    def cast(self, e: Cast) -> Callable:
        fa = self.expr(e.a)
        to, frm = e.type, e.a.type
        if isinstance(to, (IntType, PointerType)) and isinstance(frm, (IntType, PointerType)):
            if isinstance(to, IntType) and to.is_bool:
                return lambda r: 1 if fa(r) else 0
            w = _wrapper(to)
            return lambda r: w(fa(r))
        if isinstance(to, FloatType) and isinstance(frm, FloatType):
            if to.width == 32:
                return lambda r: round_f32(fa(r))
            return fa
        if not (to.is_scalar() and frm.is_scalar()):
            return fa
        conv = self.converter(e)
        return lambda r: conv(fa(r))

    def converter(self, e: Cast) -> Callable[[Any], Any]:
        """``f(value)``: the conversion of ``e`` (the general case: int <-> float)."""
        to, frm = e.type, e.a.type
        return lambda v: concrete.cast(to, frm, v)

    # ----------------------------------------------------------- statements

    cur_loc: SourceLoc = SourceLoc("", 0, 0)

    def setter(self, lhs) -> Callable:
        """``f(r, value)`` storing into an lvalue."""
        it = self.it
        if isinstance(lhs, Reg):
            if lhs.scope == "local":
                i = self.cp.slots[lhs.name]

                def set_local(r, v):
                    r[i] = v
                return set_local
            gi = it.gslots[lhs.name]

            def set_global(r, v):
                it.G[gi] = v
            return set_global
        assert isinstance(lhs, Mem)
        fa = self.expr(lhs.addr)
        t = lhs.type
        n = t.size
        loc = self.cur_loc

        def store(r, v):
            a = fa(r)
            try:
                o, off = it.mem.find(a, n)
                if o.readonly:
                    raise MemoryFault(f"write to read-only {o.name}")
            except MemoryFault as ex:
                it.fault(ex, loc)
            o.data[off:off + n] = encode(t, v)
        return store

    def traced(self, set_: Callable, lhs, text: str, loc: SourceLoc, hidden: bool, is_input: bool) -> Callable:
        it = self.it
        t = lhs.type
        fn = self.proc

        def set_and_record(r, v):
            set_(r, v)
            if it.trace is not None:
                it.trace.append(TraceStep(loc, fn, text, v, t, hidden, is_input))
        return set_and_record

    def stmt(self, s) -> Callable | None:
        self.cur_loc = s.loc
        return self.visit(s)

    def visit_Assign(self, s: Assign) -> Callable | None:
        it = self.it
        loc = s.loc
        f = self.expr(s.rhs)
        set_ = self.setter(s.lhs)
        if it.opt.record_trace:
            set_ = self.traced(set_, s.lhs, s.text, loc, s.hidden, False)
        return lambda r: set_(r, f(r))

    def visit_Nondet(self, s: Nondet) -> Callable | None:
        it = self.it
        loc = s.loc
        t = s.lhs.type
        set_ = self.setter(s.lhs)
        if it.opt.record_trace:
            set_ = self.traced(set_, s.lhs, s.text, loc, False, True)
        origin = s.origin
        return lambda r: set_(r, it.inputs.next(t, origin, loc))

    def visit_Assume(self, s: Assume) -> Callable | None:
        loc = s.loc
        f = self.expr(s.cond)

        def assume(r):
            if not f(r):
                raise _Infeasible(f"assumption at {loc} does not hold")
        return assume

    def visit_Assert(self, s: Assert) -> Callable | None:
        it = self.it
        loc = s.loc
        f = self.expr(s.cond)
        checked = s.kind in it.opt.checks
        v = Violation(s.kind, s.prop_id, loc, s.msg)

        def check(r):
            if not f(r):
                if checked:
                    raise _Violated(v)
                raise _Infeasible(f"unchecked {s.kind} at {loc}")
        return check

    def visit_Event(self, s: Event) -> Callable | None:
        it = self.it
        loc = s.loc
        letter = s.letter
        return lambda r: it.events.append((letter, loc))

    def visit_Alloc(self, s: Alloc) -> Callable | None:
        it = self.it
        loc = s.loc
        fsize = self.expr(s.size)
        set_ = self.setter(s.lhs)
        if it.opt.record_trace:
            set_ = self.traced(set_, s.lhs, s.text, loc, True, False)
        zeroed = s.zeroed
        site = s.site

        def alloc(r):
            size = fsize(r)
            base = it.heap_alloc.alloc(size)
            if zeroed:
                data = bytearray(size)
            else:
                data = bytearray(it.inputs.next(ArrayType(IntType(8, False), size), f"malloc at {site}", loc)) if size else bytearray()
            obj = MemObject(base, size, data, f"heap block from {site}", "heap", site=loc)
            it.mem.add(obj)
            it.heap[base] = obj
            set_(r, base)
        return alloc

    def visit_Free(self, s: Free) -> Callable | None:
        it = self.it
        loc = s.loc
        fp = self.expr(s.ptr)

        def free(r):
            p = fp(r)
            if p == 0:
                return
            obj = it.heap.get(p)
            if obj is None or not obj.alive:
                it.fault(MemoryFault(FREE_TWICE if obj is not None else FREE_NOT_HEAP), loc, "free")
            obj.alive = False
        return free

    def call(self, s: Call) -> CCall:
        self.cur_loc = s.loc
        target = self.expr(s.target) if s.target is not None else None
        set_ = None
        if s.lhs is not None:
            set_ = self.setter(s.lhs)
            if self.it.opt.record_trace:
                set_ = self.traced(set_, s.lhs, s.text, s.loc, True, False)
        return CCall(s.callee, target, set_, s, s.callee in self.it.program.procedures)

    def term(self, t) -> Callable:
        self.cur_loc = t.loc
        return self.visit(t)

    def visit_Goto(self, t: Goto) -> Callable:
        nb = t.target
        return lambda r: nb

    def visit_Branch(self, t: Branch) -> Callable:
        it = self.it
        f = self.expr(t.cond)
        a, b = t.then, t.else_
        if it.opt.record_decisions:
            did = t.decision_id

            def branch_rec(r):
                c = bool(f(r))
                it.decisions.append((did, c))
                return a if c else b
            return branch_rec
        return lambda r: a if f(r) else b

    def visit_Return(self, t: Return) -> Callable:
        if t.value is None:
            def ret_void(r):
                return -1
            return ret_void
        f = self.expr(t.value)

        def ret(r):
            r[RET] = f(r)
            return -1
        return ret

    def visit_Exit(self, t: Exit) -> Callable:
        if t.kind == "abort":
            def abort(r):
                raise _Exit(None)
            return abort
        f = self.expr(t.code) if t.code is not None else (lambda r: 0)

        def exit_(r):
            raise _Exit(f(r))
        return exit_


def _wrapper(t: CType) -> Callable[[int], int]:
    if isinstance(t, IntType) and t.is_bool:
        return lambda v: 1 if v else 0
    width = t.width  # type: ignore[attr-defined]
    mask = (1 << width) - 1
    if isinstance(t, IntType) and t.signed:
        half = 1 << (width - 1)
        return lambda v: ((v + half) & mask) - half
    return lambda v: v & mask


def _int_range(t: CType) -> tuple[int, int] | None:
    if isinstance(t, IntType):
        return t.min, t.max  # a _Bool object may hold any byte (loaded from memory)
    if isinstance(t, PointerType):
        return 0, (1 << t.width) - 1
    return None


def _wrap_source(t: CType, s: str) -> str:
    """Python source wrapping the integer ``s`` into ``t``'s range (as ``_wrapper``)."""
    if isinstance(t, IntType) and t.is_bool:
        return f"(1 if {s} else 0)"
    width = t.width  # type: ignore[attr-defined]
    mask = (1 << width) - 1
    if isinstance(t, IntType) and t.signed:
        half = 1 << (width - 1)
        return f"(((({s}) + {half}) & {mask}) - {half})"
    return f"(({s}) & {mask})"


_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_ARITH = {"add": "+", "sub": "-", "mul": "*"}
_BITS = {"and": "&", "or": "|", "xor": "^"}


class _Source(IRVisitor):
    """IR -> Python source for one procedure; expressions map to source text,
    statements and terminators to lines. Anything else calls its closure."""

    def __init__(self, comp: _Compiler) -> None:
        self.comp = comp
        self.ns: dict[str, Any] = {"G": comp.it.G, "it": comp.it}

    def name(self, value: Any) -> str:
        """A name in the generated module bound to ``value``."""
        k = f"_k{len(self.ns)}"
        self.ns[k] = value
        return k

    # --------------------------------------------------------- expressions

    def expr(self, e: Expr) -> str:
        return self.visit(e)

    def cond(self, e: Expr) -> str:
        """Source whose truth is ``e``'s (a comparison needs no 0/1)."""
        if isinstance(e, Binary) and e.op in _CMP:
            return f"({self.expr(e.a)} {_CMP[e.op]} {self.expr(e.b)})"
        return self.expr(e)

    def visit_Const(self, e: Const) -> str:
        v = e.value if e.type.is_scalar() else bytes(e.type.size)
        if type(v) is int:
            return f"({v})" if v < 0 else str(v)
        if type(v) is float and math.isfinite(v):
            return f"({v!r})"
        return self.name(v)

    def visit_Reg(self, e: Reg) -> str:
        if e.scope == "local":
            return f"r[{self.comp.cp.slots[e.name]}]"
        return f"G[{self.comp.it.gslots[e.name]}]"

    def visit_AddrOf(self, e: AddrOf) -> str:
        if e.scope == "local":
            return f"r[{self.comp.cp.slots[e.name]}]"
        it = self.comp.it
        return str(it.layout.functions[e.name] if e.scope == "function" else it.layout.bases[e.name])

    def visit_Load(self, e: Load) -> str:
        return f"{self.name(self.comp.reader(e.type))}({self.expr(e.addr)})"

    def visit_Binary(self, e: Binary) -> str:
        op, t = e.op, e.type
        if op in _CMP:
            return f"(1 if {self.cond(e)} else 0)"
        a, b = self.expr(e.a), self.expr(e.b)
        if isinstance(t, (IntType, PointerType)):
            if op in _ARITH:
                return _wrap_source(t, f"{a} {_ARITH[op]} {b}")
            if op in _BITS:
                inside = e.a.type == t and e.b.type == t and not (isinstance(t, IntType) and t.is_bool)
                s = f"({a} {_BITS[op]} {b})"
                return s if inside else _wrap_source(t, s)  # in-range operands stay in range
        if isinstance(t, FloatType) and t.width == 64 and op in _ARITH:
            return f"({a} {_ARITH[op]} {b})"
        return f"{self.name(self.comp.operator(e))}({a}, {b})"

    def visit_Unary(self, e: Unary) -> str:
        a = self.expr(e.a)
        if isinstance(e.type, FloatType):
            return f"(-{a})"
        return _wrap_source(e.type, f"-{a}" if e.op == "neg" else f"~{a}")

    def visit_Cast(self, e: Cast) -> str:
        a = self.expr(e.a)
        to, frm = e.type, e.a.type
        rt, rf = _int_range(to), _int_range(frm)
        if rt is not None and rf is not None:
            if isinstance(to, IntType) and to.is_bool:
                return f"(1 if {a} else 0)"
            if rt[0] <= rf[0] and rf[1] <= rt[1]:
                return a  # every value of the source type is one of the target's
            return _wrap_source(to, a)
        if isinstance(to, FloatType) and isinstance(frm, FloatType):
            return f"{self.name(round_f32)}({a})" if to.width == 32 else a
        if not (to.is_scalar() and frm.is_scalar()):
            return a
        return f"{self.name(self.comp.converter(e))}({a})"

    # ----------------------------------------------------------- statements

    def stmt(self, s) -> list[str]:
        self.comp.cur_loc = s.loc
        if self.comp.it.opt.record_trace:
            return self.closure_stmt(s)
        return self.visit(s)

    def closure_stmt(self, s) -> list[str]:
        f = self.comp.stmt(s)
        return [] if f is None else [f"{self.name(f)}(r)"]

    def visit_Assign(self, s: Assign) -> list[str]:
        rhs = self.expr(s.rhs)
        if isinstance(s.lhs, Reg):
            return [f"{self.visit_Reg(s.lhs)} = {rhs}"]
        return [f"{self.name(self.comp.setter(s.lhs))}(r, {rhs})"]  # the address after the value, as C

    def visit_Assume(self, s: Assume) -> list[str]:
        return [f"if not {self.cond(s.cond)}:", f"    {self.name(self.comp.stmt(s))}(r)"]

    def visit_Assert(self, s: Assert) -> list[str]:
        return [f"if not {self.cond(s.cond)}:", f"    {self.name(self.comp.stmt(s))}(r)"]

    visit_Nondet = visit_Event = visit_Alloc = visit_Free = closure_stmt

    # ---------------------------------------------------------- terminators

    def term(self, t) -> list[str]:
        self.comp.cur_loc = t.loc
        return self.visit(t)

    def visit_Goto(self, t: Goto) -> list[str]:
        return [f"return {t.target}"]

    def visit_Branch(self, t: Branch) -> list[str]:
        if self.comp.it.opt.record_decisions:
            return [f"c = bool({self.cond(t.cond)})",
                    f"it.decisions.append(({t.decision_id!r}, c))",
                    f"return {t.then} if c else {t.else_}"]
        return [f"return {t.then} if {self.cond(t.cond)} else {t.else_}"]

    def visit_Return(self, t: Return) -> list[str]:
        if t.value is None:
            return ["return -1"]
        return [f"r[{RET}] = {self.expr(t.value)}", "return -1"]

    def visit_Exit(self, t: Exit) -> list[str]:
        return [f"return {self.name(self.comp.term(t))}(r)"]


def compile_procedure(it: Interpreter, proc: Procedure) -> CProc:
    """The procedure's frame layout and its blocks' segments as Python functions."""
    slots: dict[str, int] = {}
    for v in proc.params + proc.locals:
        slots[v.name] = len(slots) + 1  # slot 0: return value
    params = [(slots[v.name], v.type) for v in proc.params]
    mem_locals = [(slots[v.name], v.display, max(v.type.size, 1), v.type.align) for v in proc.locals if v.in_memory]
    cp = CProc(proc, len(slots) + 1, slots, params, mem_locals)
    if [slot for slot, _ in params] != list(range(1, len(params) + 1)):
        raise ValueError(f"{proc.name}: parameters with the same name")  # the frontend refuses these
    cp.blank = [None] * (cp.nslots - 1 - len(params))
    comp = _Compiler(it, cp)
    src = _Source(comp)
    lines: list[str] = []
    shape: list[tuple[str, CCall | None, int]] = []
    for b, blk in enumerate(proc.blocks):
        cp.starts.append(len(shape))
        body: list[str] = []
        n = 0
        for st in blk.stmts:
            if isinstance(st, Call):
                src.comp.cur_loc = st.loc
                args = "".join(f"{src.expr(a)}, " for a in st.args)
                body.append(f"return ({args})")
                shape.append((_emit(lines, f"s{len(shape)}", body), comp.call(st), n + 1))
                body, n = [], 0
            else:
                body += src.stmt(st)
                n += 1
        body += src.term(blk.term)
        shape.append((_emit(lines, f"s{len(shape)}", body), None, n + 1))
    code = compile("\n".join(lines), f"<tracelearn: {proc.name}>", "exec")
    exec(code, src.ns)  # noqa: S102 (our own generated code, from the IR)
    cp.segs = [CSeg(src.ns[fn], call, size) for fn, call, size in shape]
    return cp


def _emit(lines: list[str], fn: str, body: list[str]) -> str:
    lines.append(f"def {fn}(r):")
    lines.extend("    " + line for line in body or ["pass"])
    return fn
