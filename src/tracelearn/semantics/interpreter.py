"""The interpreter: concrete runs of IR programs.

IR expressions and statements are compiled once into Python closures; calls use
an explicit frame stack (deep recursion does not touch Python's stack). A run
consumes inputs from an ``InputSource`` and reports how it ended: normally, with a
failed check (assertion, error call, array bounds, pointer, division by zero),
blocked by an assumption, or at the step limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable

from ..ir import concrete
from ..ir.analysis import used_params
from ..ir.expr import AddrOf, Binary, Cast, Const, Expr, Load, Reg, Unary
from ..ir.program import (
    Alloc, Assert, Assign, Assume, Branch, Call, Event, Exit, Free, Goto, Mem, Nondet,
    Procedure, Program, Return, SourceLoc, is_library_file,
)
from ..ir.types import ArrayType, CType, FloatType, IntType, PointerType
from ..ir.values import round_f32
from .inputs import InputRecord, InputSource
from .layout import HEAP_BASE, STACK_BASE, Bump, layout_globals
from .libspec import ARGV_STRING, MAX_ARGC, Infeasible
from ..ir.visitor import IRVisitor
from .library import LIBRARY
from .native import NativeLibrary
from .memory import FREE_NOT_HEAP, FREE_TWICE, LEAK_MESSAGE, Memory, library_property, MemObject, MemoryFault, decode, encode

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
_Infeasible = Infeasible


class _Limit(_Stop):
    pass


# --------------------------------------------------------------- compiled


@dataclass
class CCall:
    callee: str | None
    target: Callable | None
    args: list[Callable]
    set: Callable | None
    stmt: Call


@dataclass
class CSeg:
    stmts: list[Callable]
    call: CCall | None = None
    term: Callable | None = None
    size: int = 0  # IR statements (calls and terminators included) the segment executes


@dataclass
class CProc:
    proc: Procedure
    nslots: int
    slots: dict[str, int]
    params: list[tuple[int, CType]]
    mem_locals: list[tuple[int, str, int, int]]  # slot, name, size, align
    blocks: list[list[CSeg]] = field(default_factory=list)

    @property
    def library(self) -> bool:
        return is_library_file(self.proc.loc.file)


RET = 0  # frame slot of the return value


class Interpreter:
    def __init__(self, program: Program, options: InterpOptions | None = None) -> None:
        self.program = program
        self.opt = options or InterpOptions()
        self.dm = program.data_model
        self.layout = layout_globals(program)
        self.func_by_addr = {a: n for n, a in self.layout.functions.items()}
        self.gslots: dict[str, int] = {}
        for name, g in program.globals.items():
            if not g.var.in_memory:
                self.gslots[name] = len(self.gslots)
        self.compiled: dict[str, CProc] = {}
        # per-run state (reset by run)
        self.G: list = []
        self.mem = Memory()
        self.inputs = InputSource()
        self.events: list[tuple[str, SourceLoc]] = []
        self.decisions: list[tuple[str, bool]] = []
        self.trace: list[TraceStep] | None = None
        self.stack_alloc = Bump(STACK_BASE)
        self.heap_alloc = Bump(HEAP_BASE)
        self.heap: dict[int, MemObject] = {}
        self.cur_proc = ""
        self.user_site: SourceLoc | None = None  # the user's call into the running library model
        self.native = NativeLibrary(self, LIBRARY)

    # ------------------------------------------------------------------ run

    def run(self, inputs: InputSource | None = None, argv: list[str] | None = None) -> RunResult:
        self.inputs = inputs or InputSource()
        self.events = []
        self.decisions = []
        self.trace = [] if self.opt.record_trace else None
        self.mem = Memory()
        self.stack_alloc = Bump(STACK_BASE)
        self.heap_alloc = Bump(HEAP_BASE)
        self.heap = {}
        self.native.reset()
        self.user_site = None
        self.G = [0] * len(self.gslots)
        self.steps = 0
        self.stmts = 0
        status, code, violation, note = "ok", None, None, ""
        try:
            self.init_globals()
            self.execute(self.program.init, [])
            entry = self.program.procedures[self.program.entry]
            args = self.entry_args(entry, argv)
            rv = self.execute(self.program.entry, args)
            if self.program.entry == "main" and isinstance(rv, int):
                code = rv & 0xFF
            else:
                code = 0
            self.check_leaks()
        except _Exit as e:
            code = (e.code or 0) & 0xFF if e.code is not None else 134
            if e.code is None:
                status = "ok"
                note = "abort"
            else:
                try:
                    self.check_leaks()
                except _Violated as v:
                    status, violation = "violation", v.violation
        except _Violated as e:
            status, violation = "violation", self.user_facing(e.violation)
        except _Infeasible as e:
            status, note = "infeasible", e.why
        except _Limit:
            status, note = "limit", f"step limit {self.opt.max_steps} reached"
        return RunResult(status, code, violation, list(self.inputs.consumed), self.events,
                         self.decisions, self.steps, self.trace, note, self.stmts)

    def user_facing(self, v: Violation) -> Violation:
        """A failure inside a library model is the user's call's (the model checker
        names it the same way)."""
        site = self.user_site
        if site is None or not is_library_file(v.loc.file):
            return v
        return Violation(v.kind, library_property(site, v.kind), site, v.message)

    def check_leaks(self) -> None:
        """The memleak check (SV-COMP's valid-memcleanup): at the end of the program,
        by return from main or exit(), no heap block is still allocated. The first
        leaked block, in allocation order, as the model checker orders its checks."""
        if "memleak" not in self.opt.checks:
            return
        for obj in self.heap.values():
            if obj.alive and obj.site is not None:
                raise _Violated(Violation("memleak", f"{obj.site}:memleak", obj.site, LEAK_MESSAGE))

    def init_globals(self) -> None:
        for name, g in self.program.globals.items():
            t = g.var.type
            if g.var.in_memory:
                base = self.layout.bases[name]
                data = bytearray(g.init_bytes) if g.init_bytes else bytearray(t.size)
                kind = "string" if g.is_string else "global"
                self.mem.add(MemObject(base, t.size, data, g.var.display, kind, readonly=g.readonly))
            else:
                self.G[self.gslots[name]] = decode(t, g.init_bytes) if g.init_bytes else _zero(t)

    def entry_args(self, proc: Procedure, argv: list[str] | None) -> list:
        if not proc.params:
            return []
        if proc.name == "main" and len(proc.params) >= 2 and argv is None:
            if not used_params(proc):  # as the model checker: argc/argv unread, no inputs
                return [1 if i == 0 else 0 for i in range(len(proc.params))]
            return self.nondet_argv(proc)
        if proc.name == "main" and len(proc.params) >= 2:
            words = [self.program_name()] + list(argv)
            ptrw = self.dm.ptr_width // 8
            addrs = []
            for w in words:
                data = w.encode() + b"\0"
                base = self.heap_alloc.alloc(len(data))
                self.mem.add(MemObject(base, len(data), bytearray(data), "argv string", "argv"))
                addrs.append(base)
            arr = b"".join(a.to_bytes(ptrw, "little") for a in addrs + [0])
            base = self.heap_alloc.alloc(len(arr))
            self.mem.add(MemObject(base, len(arr), bytearray(arr), "argv", "argv"))
            vals = [len(words), base]
            for p in proc.params[2:]:
                vals.append(0)
            return vals
        # Another entry function: its parameters are inputs.
        return [self.inputs.next(p.type, f"parameter {p.display}", p.loc) for p in proc.params]

    def nondet_argv(self, proc: Procedure) -> list:
        """The model checker's argv: argc in [0, MAX_ARGC], MAX_ARGC strings of
        ARGV_STRING nondeterministic bytes (drawn in this order)."""

        argc = self.inputs.next_in_range(proc.params[0].type, 0, MAX_ARGC, "argc", proc.loc)
        if argc is None:
            raise _Infeasible("argc outside [0, MAX_ARGC]")
        ptrw = self.dm.ptr_width // 8
        addrs = []
        for i in range(MAX_ARGC):
            data = bytes(self.inputs.next(ArrayType(IntType(8, False), ARGV_STRING), f"argv[{i}]", proc.loc)) + b"\0"
            base = self.heap_alloc.alloc(len(data))
            self.mem.add(MemObject(base, len(data), bytearray(data), f"argv[{i}]", "argv"))
            addrs.append(base)
        arr = b"".join(a.to_bytes(ptrw, "little") for a in addrs + [0])
        base = self.heap_alloc.alloc(len(arr))
        self.mem.add(MemObject(base, len(arr), bytearray(arr), "argv", "argv"))
        return [argc, base] + [0] * (len(proc.params) - 2)

    def program_name(self) -> str:
        files = list(self.program.sources)
        return files[0].rsplit("/", 1)[-1].rsplit(".", 1)[0] if files else "a.out"

    # ----------------------------------------------------------- execution

    def execute(self, name: str, args: list):
        cp = self.compile(name)
        r = self.new_frame(cp, args)
        stack: list[tuple] = []
        b, s = 0, 0
        max_steps = self.opt.max_steps
        while True:
            seg = cp.blocks[b][s]
            for st in seg.stmts:
                st(r)
            self.stmts += seg.size
            call = seg.call
            if call is not None:
                argvals = [f(r) for f in call.args]
                callee = call.callee
                if callee is None:
                    addr = call.target(r)  # type: ignore[misc]
                    callee = self.func_by_addr.get(addr)
                    if callee is None:
                        self.fault(MemoryFault(f"call through an invalid function pointer {addr:#x}"), call.stmt.loc)
                if callee not in self.program.procedures:
                    value = self.native.call(callee, argvals, call.stmt)
                    if call.set is not None:
                        call.set(r, value)
                    s += 1
                    continue
                ncp = self.compile(callee)
                stack.append((cp, r, b, s + 1, call.set, self.user_site))
                if len(stack) > 100_000:
                    raise _Limit()
                if self.user_site is None and ncp.library:
                    self.user_site = call.stmt.loc  # failures inside a library model show here
                cp = ncp
                r = self.new_frame(cp, self.fit_args(ncp, argvals, call.stmt))
                b, s = 0, 0
                continue
            nb = seg.term(r)  # type: ignore[misc]
            self.steps += 1
            if max_steps is not None and self.steps > max_steps:
                raise _Limit()
            if nb >= 0:
                b, s = nb, 0
                continue
            value = r[RET]
            self.free_frame(cp, r)
            if not stack:
                return value
            cp, r, b, s, setter, self.user_site = stack.pop()
            if setter is not None:
                setter(r, value)

    def fit_args(self, cp: CProc, args: list, call: Call) -> list:
        n = len(cp.params)
        if len(args) < n:
            missing = cp.params[len(args):]
            args = args + [self.inputs.next(t, f"missing argument of {cp.proc.name}", call.loc) for _, t in missing]
        return args[:n]

    def new_frame(self, cp: CProc, args: list) -> list:
        r: list = [None] * cp.nslots
        for (slot, t), v in zip(cp.params, args):
            r[slot] = v
        for slot, name, size, align in cp.mem_locals:
            base = self.stack_alloc.alloc(size, align)
            self.mem.add(MemObject(base, size, bytearray(size), name, "local"))
            r[slot] = base
        return r

    def free_frame(self, cp: CProc, r: list) -> None:
        for slot, _, _, _ in cp.mem_locals:
            o = self.mem.object_at(r[slot])
            if o is not None:
                o.alive = False
                self.mem.remove(o)

    # -------------------------------------------------------------- errors

    def fault(self, e: MemoryFault, loc: SourceLoc, sub: str = "pointer") -> None:
        """A memory-safety violation; ``sub`` names the property (``pointer``, ``free``),
        as the model checker names it, so that a counterexample's replay matches."""
        if "pointer" in self.opt.checks:
            raise _Violated(Violation("pointer", f"{loc}:{sub}", loc, e.message))
        raise _Infeasible(e.message)

    # ------------------------------------------------------------- compile

    def compile(self, name: str) -> CProc:
        cp = self.compiled.get(name)
        if cp is not None:
            return cp
        proc = self.program.procedures[name]
        slots: dict[str, int] = {}
        for v in proc.params + proc.locals:
            slots[v.name] = len(slots) + 1  # slot 0: return value
        params = [(slots[v.name], v.type) for v in proc.params]
        mem_locals = [(slots[v.name], v.display, max(v.type.size, 1), v.type.align) for v in proc.locals if v.in_memory]
        cp = CProc(proc, len(slots) + 1, slots, params, mem_locals)
        self.compiled[name] = cp
        comp = _Compiler(self, cp)
        for blk in proc.blocks:
            segs: list[CSeg] = [CSeg([])]
            for st in blk.stmts:
                if isinstance(st, Call):
                    segs[-1].call = comp.call(st)
                    segs.append(CSeg([]))
                else:
                    f = comp.stmt(st)
                    if f is not None:
                        segs[-1].stmts.append(f)
            segs[-1].term = comp.term(blk.term)
            for seg in segs:
                seg.size = len(seg.stmts) + 1  # the call or the terminator
            cp.blocks.append(segs)
        return cp


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
        n = t.size
        loc = self.cur_loc
        it = self.it

        def read(r):
            a = fa(r)
            try:
                o, off = it.mem.find(a, n)
            except MemoryFault as ex:
                it.fault(ex, loc)
            return o.data[off:off + n]

        if isinstance(t, IntType):
            signed = t.signed
            return lambda r: int.from_bytes(read(r), "little", signed=signed)
        if isinstance(t, PointerType):
            return lambda r: int.from_bytes(read(r), "little")
        if isinstance(t, FloatType):
            import struct

            fmt = "<f" if t.width == 32 else "<d"
            return lambda r: struct.unpack(fmt, read(r))[0]
        return lambda r: bytes(read(r))

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
        loc = self.cur_loc

        def generic(r):
            try:
                return concrete.binary(op, t, fa(r), fb(r), e.optype)
            except ZeroDivisionError:
                # Unchecked division by zero: undefined, the path is not followed.
                raise _Infeasible(f"division by zero at {loc}") from None

        return generic

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
        return lambda r: concrete.cast(to, frm, fa(r))

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
        args = [self.expr(a) for a in s.args]
        target = self.expr(s.target) if s.target is not None else None
        set_ = None
        if s.lhs is not None:
            set_ = self.setter(s.lhs)
            if self.it.opt.record_trace:
                set_ = self.traced(set_, s.lhs, s.text, s.loc, True, False)
        return CCall(s.callee, target, args, set_, s)

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


__all__ = ["Interpreter", "InterpOptions", "RunResult", "Violation", "TraceStep", "ALL_CHECKS", "_zero"]
