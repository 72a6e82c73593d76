"""The interpreter: concrete runs of IR programs.

Each procedure is compiled once into Python functions (``compiler``); calls use
an explicit frame stack (deep recursion does not touch Python's stack). A run
consumes inputs from an ``InputSource`` and reports how it ended: normally, with a
failed check (assertion, error call, array bounds, pointer, division by zero),
blocked by an assumption, or at the step limit.
"""

from __future__ import annotations

from ..ir.analysis import used_params
from ..ir.program import Call, Procedure, Program, SourceLoc, is_library_file
from ..ir.types import ArrayType, IntType
from .compiler import RET, CProc, _zero, compile_procedure
from .inputs import InputSource
from .layout import HEAP_BASE, STACK_BASE, Bump, layout_globals
from .libspec import ARGV_STRING, MAX_ARGC
from .library import LIBRARY
from .memory import LEAK_MESSAGE, Memory, MemObject, MemoryFault, decode, library_property
from .native import NativeLibrary
from .runs import (
    ALL_CHECKS, CallResult, InterpOptions, RunResult, TraceStep, Violation, _Exit, _Infeasible, _Limit, _Violated,
)

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
        self.G: list = [0] * len(self.gslots)  # one list for good: compiled code holds it
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

    def reset(self, inputs: InputSource | None = None) -> None:
        """A fresh run's state: empty memory, zero globals, no events."""
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
        self.G[:] = [0] * len(self.gslots)
        self.steps = 0
        self.stmts = 0

    def call(self, name: str, args: list, globals_in: dict[str, int] | None = None) -> CallResult:
        """One call of procedure ``name`` on ``args`` from the state the global
        initialiser leaves (register globals set from ``globals_in`` first): what it
        returns and the register globals after, or how it ended otherwise."""
        self.reset()
        try:
            self.init_globals()
            self.execute(self.program.init, [])
            for g, v in (globals_in or {}).items():
                self.G[self.gslots[g]] = v
            value = self.execute(name, list(args))
        except _Exit:
            return CallResult("exit")
        except _Violated as e:
            return CallResult("violation", violation=e.violation)
        except _Infeasible:
            return CallResult("infeasible")
        except _Limit:
            return CallResult("limit")
        return CallResult("ok", value, {g: self.G[i] for g, i in self.gslots.items()})

    def run(self, inputs: InputSource | None = None, argv: list[str] | None = None) -> RunResult:
        self.reset(inputs)
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
        segs, starts, i = cp.segs, cp.starts, 0
        limit = self.opt.max_steps if self.opt.max_steps is not None else float("inf")
        steps, stmts = self.steps, self.stmts  # locals: the loop is the interpreter's hot path
        try:
            while True:
                seg = segs[i]
                out = seg.run(r)
                stmts += seg.size
                call = seg.call
                if call is None:
                    steps += 1
                    if steps > limit:
                        raise _Limit()
                    if out >= 0:
                        i = starts[out]
                        continue
                    value = r[RET]
                    if cp.mem_locals:
                        self.free_frame(cp, r)
                    if not stack:
                        return value
                    cp, r, i, setter, self.user_site = stack.pop()
                    segs, starts = cp.segs, cp.starts
                    if setter is not None:
                        setter(r, value)
                    continue
                ncp = call.proc
                if ncp is None:
                    callee = call.callee
                    if callee is None:
                        addr = call.target(r)  # type: ignore[misc]
                        callee = self.func_by_addr.get(addr)
                        if callee is None:
                            self.fault(MemoryFault(f"call through an invalid function pointer {addr:#x}"), call.stmt.loc)
                    if callee not in self.program.procedures:
                        value = self.native.call(callee, list(out), call.stmt)
                        if call.set is not None:
                            call.set(r, value)
                        i += 1
                        continue
                    ncp = self.compile(callee)
                    if call.callee is not None:
                        call.proc = ncp
                stack.append((cp, r, i + 1, call.set, self.user_site))
                if len(stack) > 100_000:
                    raise _Limit()
                if self.user_site is None and ncp.library:
                    self.user_site = call.stmt.loc  # failures inside a library model show here
                cp, segs, starts, i = ncp, ncp.segs, ncp.starts, 0
                r = self.new_frame(cp, self.fit_args(ncp, out, call.stmt))
        finally:
            self.steps, self.stmts = steps, stmts

    def fit_args(self, cp: CProc, args: tuple, call: Call) -> tuple | list:
        n = len(cp.params)
        if len(args) == n:
            return args
        if len(args) < n:
            missing = cp.params[len(args):]
            args = list(args) + [self.inputs.next(t, f"missing argument of {cp.proc.name}", call.loc) for _, t in missing]
        return list(args[:n])

    def new_frame(self, cp: CProc, args: tuple | list) -> list:
        r: list = [None, *args, *cp.blank]  # parameters take slots 1..n
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
        if cp is None:
            cp = self.compiled[name] = compile_procedure(self, self.program.procedures[name])
        return cp


__all__ = ["Interpreter", "InterpOptions", "RunResult", "Violation", "TraceStep", "ALL_CHECKS", "_zero"]
