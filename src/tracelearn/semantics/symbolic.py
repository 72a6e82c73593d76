"""The symbolic semantics of the IR: what each statement, expression and library
call means over a symbolic ``State`` (z3 terms for values, memory as objects,
pointers as (object, offset)).

It knows nothing of how paths are explored: a strategy (``strategies/``) decides
which blocks run, in which order, and how states meet; a target (``targets.py``)
receives the definitions and steps it derives. CBMC's ``goto_symex`` is the model.
The concrete twin of this file is ``interpreter.py``; the agreement tests hold them
together.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Protocol

import z3

from ..ir.analysis import used_params
from ..ir.expr import AddrOf, Binary, Cast, Const, Expr, Load, Reg, Unary, walk
from ..ir.visitor import IRVisitor
from ..ir.program import (
    Alloc, Assert, Assign, Assume, Branch, Call, Event, Exit, Free, Mem, Nondet,
    Procedure, Program, Return, SourceLoc, is_library_file,
)
from ..ir.types import ArrayType, CType, FloatType, IntType, PointerType
from ..ir import concrete as C
from . import symexpr as S
from .addresses import Offset, Tree, address_tree, as_bool, by_offset, project, unname
from .equation import Equation, Step
from .layout import HEAP_BASE, INVALID_BASE, INVALID_SIZE, STACK_BASE, Bump, layout_globals
from .libspec import ARGV_STRING, MAX_ARGC
from .memory import FREE_NOT_HEAP, FREE_TWICE, LEAK_MESSAGE, library_property
from .library import LIBRARY
from .symlib import SymLibrary
from .symstate import SVal, State, SymObject, pts_union
from ..z3dag import lit_false, lit_true


class SymexLimit(Exception):
    """The derivation grew beyond the configured size or time: the query is undecided."""


class Target(Protocol):
    """Where definitions and steps go (see ``targets.py``)."""

    eq: Equation

    def constrain(self, c: z3.BoolRef) -> None: ...

    def record(self, s: Step) -> int: ...

    def unsupported(self, why: str) -> None: ...

    def approximation(self, why: str) -> None: ...


# The addresses a heap block of symbolic size may span, for a constant address.
SYMBOLIC_SIZE_SPAN = 1 << 30

# The largest term (in nodes) a single path carries unnamed with ``name_values`` off.
INLINE_NODES = 12
MAX_BUILT = 200_000  # terms ``SymbolicSemantics.built`` keeps
READ_THROUGH = 8  # definitions of an object's named versions a read follows for a value


@dataclass
class SemanticsOptions:
    max_steps: int = 2_000_000  # steps derived before giving up (unknown)
    continue_kinds: frozenset = frozenset()  # failed checks of these kinds do not end the run (CBMC)
    cut_props: frozenset = frozenset()  # ... except these properties (the analysis' targets)
    entry_args: str = "nondet"
    leak_checks: bool = False  # the memleak check at the ends of the program
    # k-induction's step case (strategies/kinduction.py): (global, k): a check fails only
    # once that global's value is past k; before, it is assumed to hold
    armed: tuple[str, int] | None = None
    # Name each new version of a byte-array object (a fresh constant equal to it): merged
    # states share it instead of copying the term. A single path is better off with the
    # term itself, where a read of bytes it wrote simplifies to their value.
    name_memory: bool = True
    # Name each value assigned (an SSA constant defined equal to it), as the merged
    # equation needs. A single path may carry a small term itself instead (``x - 3``,
    # not ``n#2`` with ``n#2 == n#1 - 1`` and ``n#1 == x - 2``): no definition for the
    # solver to take in, and a condition on it is one on the inputs (KLEE's way).
    name_values: bool = True


@dataclass
class Frame:
    fid: int
    proc: Procedure
    objects: dict[str, int]  # memory locals -> object ids
    outer_site: SourceLoc | None = None  # the library call site active when it was entered


def is_false(e: z3.BoolRef) -> bool:
    """Literally false: guards are built with ``symexpr.conj`` and conditions come
    simplified, so a dead path shows without a simplifier call (a false guard missed
    would only cost time: its steps cannot happen)."""
    return lit_false(e)


def is_true(e: z3.BoolRef) -> bool:
    return lit_true(e)


class SymbolicSemantics(IRVisitor):
    """Statement by statement, the symbolic meaning of a program; the call stack is
    ``frames`` (pushed by ``enter``, popped by ``leave``, both driven by a strategy)."""

    def __init__(self, program: Program, options: SemanticsOptions, target: Target) -> None:
        self.program = program
        self.opt = options
        self.target = target
        self.dm = program.data_model
        self.pw = self.dm.ptr_width
        self.address_type = IntType(self.pw, False)
        self.layout = layout_globals(program)
        self.objects: dict[int, SymObject] = {}
        self.alloc_sites: dict[int, SourceLoc] = {}  # heap block -> its malloc
        self.user_site: SourceLoc | None = None  # the user's call into the library model running
        self.global_objs: dict[str, int] = {}
        self.oids = itertools.count(1)
        self.stack_alloc = Bump(STACK_BASE)
        self.heap_alloc = Bump(HEAP_BASE)
        self.fids = itertools.count(1)
        self.ssa_count: dict[str, int] = defaultdict(int)
        self.names = itertools.count()
        self.frames: list[Frame] = []
        self.func_addr = self.layout.functions
        self.addr_funcs = {a: n for n, a in self.func_addr.items()}
        self.cur_loc = SourceLoc("", 0, 0)
        self.deadline: float | None = None
        self.stop: Callable[[], bool] | None = None  # asked now and then: end the derivation early
        self.lib = SymLibrary(self, LIBRARY)
        self._addr_funcs: list[str] | None = None
        # SSA symbol's AST id -> (symbol, the term it is defined equal to); the symbol
        # keeps its id from being reused
        self.values: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
        self.nowhere: dict[int, z3.ExprRef] = {}  # the same for pointers that are null or invalid
        # address term's AST id -> (the term, its places): a function of the term, since
        # definitions never change (a pointer's fields are accessed one after the other);
        # and the places of their subterms, (AST id, offset) -> (subterm, places)
        self.trees: dict[int, tuple[z3.ExprRef, Tree | None]] = {}
        self.subtrees: dict[tuple[int, int], tuple[z3.ExprRef, Tree]] = {}
        # (what, IR node's id, operands' AST ids) -> (node, operands, the term built): a
        # path strategy runs the same prefixes again from stored points (a flip, a
        # membership word), building and simplifying the same terms; what the value holds
        # keeps the ids in the key from being reused
        self.built: dict[tuple, tuple] = {}
        # Folded constants as numerals, built once per (width, bits), and their values by
        # AST id (the numerals held here keep the ids from being reused): z3's wrapper makes
        # a sort and parses a decimal string per numeral, and reading one back asks several
        # questions of z3; a csmith program folds tens of thousands
        self.numerals: dict[tuple[int, int], z3.ExprRef] = {}
        self.numeral_bits: dict[int, int] = {}

    # ------------------------------------------------------------- naming

    def fresh_name(self, base: str) -> str:
        k = self.ssa_count[base]
        self.ssa_count[base] += 1
        return f"{base}#{k}"

    def constrain(self, c: z3.BoolRef) -> None:
        self.target.constrain(c)

    def define(self, name: str, term: z3.ExprRef) -> z3.ExprRef:
        """A fresh SSA symbol defined equal to ``term``."""
        sym = z3.Const(name, term.sort())
        self.constrain(sym == term)
        if z3.is_bv(term):  # an address may be read back through it (``addresses.py``)
            self.values[sym.get_id()] = (sym, term)
        return sym

    def invalid_pointer(self, name: str, t: PointerType) -> z3.ExprRef:
        """A nondeterministic pointer: null or invalid, never into an object (as a
        pointer input)."""
        sym = S.fresh(name, t)
        self.constrain(z3.Or(sym == 0, z3.And(z3.UGE(sym, INVALID_BASE), z3.ULT(sym, INVALID_BASE + INVALID_SIZE))))
        self.nowhere[sym.get_id()] = sym
        return sym

    def is_nowhere(self, sym: z3.ExprRef) -> bool:
        d = self.nowhere.get(sym.get_id())
        return d is not None and d.eq(sym)

    def definition(self, sym: z3.ExprRef) -> z3.ExprRef | None:
        """The term ``sym`` was defined equal to (None: an input or not a bit-vector)."""
        d = self.values.get(sym.get_id())
        return d[1] if d is not None and d[0].eq(sym) else None

    def _inline(self, term: z3.ExprRef) -> bool:
        """With ``name_values`` off, is ``term`` kept as it is, not named: at most
        INLINE_NODES nodes."""
        if self.opt.name_values:
            return False
        # z3's C API on raw pointers (alive while ``term`` is): no Python wrapper per node
        ctx, app = term.ctx_ref(), z3.Z3_APP_AST
        work, n = [term.as_ast()], 0
        while work:
            n += 1
            if n > INLINE_NODES:
                return False
            a = work.pop()
            if z3.Z3_get_ast_kind(ctx, a) == app:
                work.extend(z3.Z3_get_app_arg(ctx, a, i) for i in range(z3.Z3_get_app_num_args(ctx, a)))
        return True

    def _once(self, key: tuple, make: Callable[[], tuple]) -> tuple:
        """``built[key]``, made by ``make()`` the first time (a tuple holding what the
        key's ids name, the term built last)."""
        hit = self.built.get(key)
        if hit is None:
            if len(self.built) >= MAX_BUILT:  # a cache: start afresh
                self.built.clear()
            hit = self.built[key] = make()
        return hit

    def _const(self, t: CType, value: int) -> z3.ExprRef:
        """The numeral of ``value`` of integer or pointer type ``t``."""
        key = (t.width, value & ((1 << t.width) - 1))
        hit = self.numerals.get(key)
        if hit is None:
            if len(self.numerals) >= MAX_BUILT:  # a cache: start afresh
                self.numerals.clear()
                self.numeral_bits.clear()
            hit = self.numerals[key] = S.const(t, value)
            self.numeral_bits[hit.get_id()] = key[1]
        return hit

    def _int_value(self, t: CType, term: z3.ExprRef) -> int | None:
        """The C value of a constant integer or pointer term, else None."""
        bits = self.numeral_bits.get(term.get_id())
        if bits is None:
            return _int_value(t, term)
        return t.wrap(bits) if isinstance(t, IntType) else bits if isinstance(t, PointerType) else None

    def _settled(self, term: z3.ExprRef) -> tuple[z3.ExprRef, bool]:
        """``term`` simplified, and whether it is kept as it is (``_inline``), not named."""
        def make() -> tuple:
            simple = _simp(term)
            return term, self._inline(simple), simple

        _, inline, simple = self._once(("settled", term.get_id()), make)
        return simple, inline

    def step(self, s: Step) -> None:
        if self.user_site is not None:  # inside a library model: the user's call site
            s.loc = self.user_site
            s.hidden = s.hidden or s.kind == "assign"
            s.keyword = None  # the model's branches are no waypoints of the user's program
        n = self.target.record(s)
        if n > self.opt.max_steps:
            raise SymexLimit(f"equation exceeds {self.opt.max_steps} steps")
        if n % 16 == 0:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise SymexLimit("timeout while unwinding the program")
            if self.stop is not None and self.stop():
                raise SymexLimit("stopped: another strategy answered")

    def unsupported(self, why: str) -> None:
        """A path the semantics cannot follow (it is cut): no "true" verdict."""
        self.target.unsupported(why)

    def approximation(self, why: str) -> None:
        """An over-approximation: a "false" verdict needs a replay."""
        self.target.approximation(why)

    @property
    def fn(self) -> str:
        return self.frames[-1].proc.name if self.frames else ""

    # --------------------------------------------------------- start

    def init_globals(self, st: State) -> None:
        for name, g in self.program.globals.items():
            t = g.var.type
            if g.var.in_memory:
                obj = self.new_object(g.var.display, "string" if g.is_string else "global",
                                      self.layout.bases[name], t.size, g.readonly)
                self.global_objs[name] = obj.oid
                st.mem[obj.oid] = obj.from_bytes(g.init_bytes) if g.init_bytes else obj.empty()
                st.spts[obj.oid] = frozenset()
            else:
                v = int.from_bytes(g.init_bytes, "little") if g.init_bytes else 0
                term = S.from_bits(t, z3.BitVecVal(v, t.size * 8)) if isinstance(t, FloatType) else \
                    z3.BitVecVal(v, max(t.size, 1) * 8)
                st.regs["@" + name] = SVal(term)

    def new_object(self, name: str, kind: str, base: int, size: int | None, readonly: bool = False,
                   size_term: z3.BitVecRef | None = None) -> SymObject:
        oid = next(self.oids)
        st = size_term if size_term is not None else z3.BitVecVal(size or 0, self.pw)
        obj = SymObject(oid, name, kind, base, size, st, self.pw, readonly)
        self.objects[oid] = obj
        return obj

    def entry_args(self, st: State, proc: Procedure) -> list[SVal]:
        if not proc.params:
            return []
        if proc.name == "main" and len(proc.params) >= 2:
            if not used_params(proc):  # argc/argv never read: no inputs for them
                return [SVal(S.const(p.type, 1 if i == 0 else 0)) for i, p in enumerate(proc.params)]
            return self.nondet_argv(st, proc)
        out = []
        for p in proc.params:
            out.append(self.input(st, p.type, f"parameter {p.display}", p.loc, p.display, fn=proc.name))
        return out

    def nondet_argv(self, st: State, proc: Procedure) -> list[SVal]:
        """argc in [0, MAX_ARGC] (POSIX allows an empty argv); argv[i] nondeterministic
        NUL-terminated strings."""
        loc = proc.loc
        argc_t = proc.params[0].type
        argc = self.input(st, argc_t, "argc", loc, "argc", fn=proc.name)
        st.guard = S.conj(st.guard, argc.term >= 0, argc.term <= MAX_ARGC)
        ptrs = []
        for i in range(MAX_ARGC):
            obj = self.new_object(f"argv[{i}]", "argv", self.heap_alloc.alloc(ARGV_STRING + 1), ARGV_STRING + 1)
            data = self.input(st, ArrayType(IntType(8, False), ARGV_STRING), f"argv[{i}]", loc, f"argv[{i}]",
                              fn=proc.name)
            st.mem[obj.oid] = z3.Concat(z3.BitVecVal(0, 8), data.term)
            st.spts[obj.oid] = frozenset()
            ptrs.append(obj)
        arr_size = (MAX_ARGC + 1) * self.pw // 8
        arr = self.new_object("argv", "argv", self.heap_alloc.alloc(arr_size), arr_size)
        words = [z3.BitVecVal(o.base, self.pw) for o in ptrs] + [z3.BitVecVal(0, self.pw)]
        st.mem[arr.oid] = z3.Concat(*reversed(words))
        st.spts[arr.oid] = frozenset(o.oid for o in ptrs)
        argv = SVal(z3.BitVecVal(arr.base, self.pw), frozenset({arr.oid}))
        rest = [SVal(S.const(p.type, 0)) for p in proc.params[2:]]
        return [argc, argv] + rest

    # ------------------------------------------------------------- inputs

    def input(self, st: State, t: CType, origin: str, loc: SourceLoc, display: str, fn: str | None = None) -> SVal:
        fn = fn or self.fn
        name = self.fresh_name(f"{fn}::{display or 'input'}" if fn else (display or "input"))
        sym = self.invalid_pointer(name, t) if isinstance(t, PointerType) else S.fresh(name, t)
        if isinstance(t, IntType) and t.is_bool:
            self.constrain(z3.ULE(sym, 1))
        self.step(Step("input", st.guard, loc, fn, lhs=display, ssa=sym, type=t, name=name, message=origin))
        return SVal(sym)

    # --------------------------------------------------------- procedures

    def enter(self, st: State, proc: Procedure, args: list[SVal], loc: SourceLoc,
              entry: bool = False) -> tuple[Frame, State]:
        """Push a frame for ``proc`` called at ``loc``: parameters bound, memory locals
        allocated. The caller's state is not changed (a copy is returned)."""
        frame = Frame(next(self.fids), proc, {}, self.user_site)
        self.frames.append(frame)
        if self.user_site is None and is_library_file(proc.loc.file):
            self.user_site = loc  # what happens in a library model is shown at its call
        try:
            st = st.copy()
            for p, a in zip(proc.params, args):
                st.regs[self.key(frame, p.name)] = a if entry else self.bind_param(st, proc, p, a, loc)
            for v in proc.locals:
                if v.in_memory:
                    size = max(v.type.size, 1)
                    obj = self.new_object(v.display, "local", self.stack_alloc.alloc(size, v.type.align), size)
                    frame.objects[v.name] = obj.oid
                    st.mem[obj.oid] = obj.empty()
                    st.spts[obj.oid] = frozenset()
            self.step(Step("call", st.guard, loc, proc.name, lhs=proc.name))
        except BaseException:  # a limit hit on the way in: the frame is not entered
            self.leave(frame)
            raise
        return frame, st

    def leave(self, frame: Frame) -> None:
        """Pop ``frame`` (the innermost)."""
        assert self.frames and self.frames[-1] is frame
        self.frames.pop()
        self.user_site = frame.outer_site

    def returned(self, frame: Frame, st: State, loc: SourceLoc) -> None:
        """``st`` is after ``frame``'s procedure returned: drop its locals."""
        prefix = f"{frame.fid}:"
        for k in [k for k in st.regs if k.startswith(prefix)]:
            del st.regs[k]
        for oid in frame.objects.values():
            st.mem.pop(oid, None)
        self.step(Step("return", st.guard, loc, frame.proc.name, lhs=frame.proc.name))

    def bind_param(self, st: State, proc: Procedure, p, a: SVal, loc: SourceLoc) -> SVal:
        """Parameter passing as an SSA assignment ``f::x#0 = argument``: not a statement
        of the trace, but a value the explanation can name."""
        name = self.fresh_name(f"{proc.name}::{p.display}")
        term, inline = self._settled(a.term)
        sym = term
        if not inline:
            sym = self.define(name, term)
        self.step(Step("param", st.guard, loc, proc.name, lhs=p.display, ssa=sym, type=p.type, name=name,
                       var=f"{proc.name}::{p.name}", hidden=True, args=[term]))
        return SVal(term if _is_value(term) else sym, a.pts)

    def key(self, frame: Frame, name: str) -> str:
        return f"{frame.fid}:{name}"

    def exec_stmt(self, frame: Frame, s, st: State) -> State:
        """Run statement ``s`` (anything but a call: calls are the strategy's)."""
        self.cur_loc = s.loc
        self.visit(s, frame, st)
        return st

    def visit_Assign(self, s: Assign, frame: Frame, st: State) -> None:
        self.assign(frame, st, s.lhs, self.eval(st, s.rhs), s.loc, s.text, s.hidden)

    def visit_Nondet(self, s: Nondet, frame: Frame, st: State) -> None:
        v = self.input(st, s.lhs.type, s.origin, s.loc, s.text or "input")
        self.assign(frame, st, s.lhs, v, s.loc, s.text, hidden=True)

    def visit_Assume(self, s: Assume, frame: Frame, st: State) -> None:
        c = S.truth(self.eval(st, s.cond).term)
        st.guard = S.conj(st.guard, c)

    def visit_Assert(self, s: Assert, frame: Frame, st: State) -> None:
        c = S.truth(self.eval(st, s.cond).term)
        self.check(st, c, s.kind, s.prop_id, s.loc, s.msg, s.origin)

    def visit_Event(self, s: Event, frame: Frame, st: State) -> None:
        self.step(Step("event", st.guard, s.loc, frame.proc.name, letter=s.letter))

    def visit_Alloc(self, s: Alloc, frame: Frame, st: State) -> None:
        sz = z3.simplify(self.eval(st, s.size).term)
        base = self.heap_alloc.alloc(sz.as_long() if z3.is_bv_value(sz) else 4096)
        obj = self.new_object(f"heap block from {s.site}", "heap", base,
                              sz.as_long() if z3.is_bv_value(sz) else None, size_term=sz)
        st.mem[obj.oid] = obj.empty() if s.zeroed else self.heap_contents(st, obj, s)
        st.spts[obj.oid] = frozenset()
        st.alive[obj.oid] = z3.BoolVal(True)
        self.alloc_sites[obj.oid] = s.loc
        self.assign(frame, st, s.lhs, SVal(z3.BitVecVal(base, self.pw), frozenset({obj.oid})), s.loc, s.text, True)

    def visit_Free(self, s: Free, frame: Frame, st: State) -> None:
        self.free(st, self.eval(st, s.ptr), s.loc)

    def leak_checks(self, st: State) -> None:
        """The memleak check at an end of the program (see ``Interpreter.check_leaks``):
        one check per heap block, in allocation order."""
        if not self.opt.leak_checks:
            return
        for oid in sorted(self.alloc_sites):
            if oid in st.alive:
                site = self.alloc_sites[oid]
                self.check(st, _simp(z3.Not(st.alive[oid])), "memleak", f"{site}:memleak", site, LEAK_MESSAGE, "memleak")

    def heap_contents(self, st: State, obj: SymObject, s: Alloc) -> z3.ExprRef:
        """Fresh heap memory is nondeterministic: an input of the run."""
        name = self.fresh_name(f"{self.fn}::malloc")
        if obj.is_blob:
            t = ArrayType(IntType(8, False), obj.size or 0)
            sym = S.fresh(name, t) if obj.size else z3.BitVecVal(0, 8)
            if obj.size:
                self.step(Step("input", st.guard, s.loc, self.fn, lhs=s.text or "malloc", ssa=sym, type=t,
                               name=name, message=f"malloc at {s.site}", hidden=True))
            return sym
        arr = z3.Array(name, z3.BitVecSort(self.pw), z3.BitVecSort(8))
        self.step(Step("input", st.guard, s.loc, self.fn, lhs=s.text or "malloc", ssa=arr, type=None,
                       name=name, message=f"malloc at {s.site}", extent=obj.size_term, hidden=True))
        return arr

    def check(self, st: State, ok: z3.BoolRef, kind: str, prop_id: str, loc: SourceLoc, msg: str, origin: str = "") -> None:
        if is_true(ok):
            return
        if self.user_site is not None:
            loc, prop_id = self.user_site, library_property(self.user_site, kind)
        viol_term = S.conj(st.guard, z3.Not(ok))
        if self.opt.armed is not None:
            name, k = self.opt.armed
            n = st.regs.get("@" + name)
            viol_term = S.conj(viol_term, n.term > k) if n is not None else z3.BoolVal(False)
        viol = z3.Bool(f"viol#{next(self.names)}")
        self.constrain(viol == viol_term)
        self.step(Step("check", st.guard, loc, self.fn, cond=ok, violation=viol, prop_id=prop_id,
                       prop_kind=kind, message=msg, origin=origin))
        if kind in self.opt.continue_kinds and prop_id not in self.opt.cut_props:
            return  # CBMC's semantics for unchecked properties: the run goes on
        st.guard = S.conj(st.guard, ok)

    def assign(self, frame: Frame, st: State, lhs, v: SVal, loc: SourceLoc, text: str, hidden: bool) -> None:
        t = lhs.type
        if isinstance(lhs, Reg):
            disp = text or lhs.name
            var = f"{frame.proc.name}::{lhs.name}" if lhs.scope == "local" else lhs.name
            name = self.fresh_name(f"{frame.proc.name}::{disp}" if lhs.scope == "local" else disp)
            simple, inline = self._settled(v.term)
            key = self.key(frame, lhs.name) if lhs.scope == "local" else "@" + lhs.name
            if inline:
                sym = stored = simple
            else:
                sym = self.define(name, simple)
                stored = simple if _is_value(simple) else sym
            st.regs[key] = SVal(stored, v.pts)
            self.step(Step("assign", st.guard, loc, frame.proc.name, lhs=disp, ssa=sym, type=t,
                           hidden=hidden or lhs.name.startswith("__"), name=name, var=var))
            return
        assert isinstance(lhs, Mem)
        addr = self.eval(st, lhs.addr)
        simple, inline = self._settled(v.term)
        name = self.fresh_name(f"{frame.proc.name}::{text or 'mem'}")
        if inline:
            sym = simple
        else:
            sym = self.define(name, simple)
        self.step(Step("assign", st.guard, loc, frame.proc.name, lhs=text or "memory", ssa=sym, type=t,
                       hidden=hidden, name=name))
        self.store(st, addr, t, SVal(simple if _is_value(simple) else sym, v.pts), loc)

    # ---------------------------------------------------------- terminators

    def decision(self, frame: Frame, st: State, t: Branch) -> z3.BoolRef:
        """The condition of branch ``t`` (recorded as a decision step)."""
        self.cur_loc = t.loc
        v = self.eval(st, t.cond).term
        c = self._once(("decision", id(t), v.get_id()), lambda: (t, v, _simp(S.truth(v))))[-1]
        self.step(Step("decision", st.guard, t.loc, frame.proc.name, cond=c,
                       decision_id=t.decision_id, source_id=t.source_id, lhs=t.text,
                       keyword=t.keyword, atomic=t.atomic))
        return c

    def return_value(self, st: State, t: Return) -> SVal | None:
        self.cur_loc = t.loc
        return self.eval(st, t.value) if t.value is not None else None

    def exit(self, frame: Frame, st: State, t: Exit) -> None:
        """``exit``/``abort`` and the like: the end of the run."""
        self.cur_loc = t.loc
        code = self.eval(st, t.code) if t.code is not None else None
        if t.kind == "exit":
            self.leak_checks(st)
        self.step(Step("exit", st.guard, t.loc, frame.proc.name, lhs=t.kind,
                       ssa=code.term if code is not None else None))

    def end(self, st: State, entry: Procedure) -> None:
        """The entry procedure returned."""
        self.leak_checks(st)
        self.step(Step("exit", st.guard, entry.loc, entry.name, lhs="return"))

    # ------------------------------------------------------------- calls

    def call_args(self, st: State, s: Call) -> list[SVal]:
        self.cur_loc = s.loc
        return [self.eval(st, a) for a in s.args]

    def callees(self, st: State, s: Call) -> list[tuple[str, z3.BoolRef]]:
        """The functions a call may reach, each with its condition; adds the check that
        a call through a pointer reaches a function."""
        if s.callee is not None:
            return [(s.callee, z3.BoolVal(True))]
        target = self.eval(st, s.target)
        cands = self.function_candidates(target)
        conds = [(n, target.term == z3.BitVecVal(self.func_addr[n], self.pw)) for n in cands]
        self.check(st, S.disj(*[c for _, c in conds]), "pointer",
                   f"{s.loc}:pointer", s.loc, "call through an invalid function pointer")
        return conds

    def procedure_args(self, st: State, proc: Procedure, args: list[SVal], s: Call) -> list[SVal]:
        """Arguments as ``proc`` receives them (missing ones are inputs, as in C's
        calls of undeclared functions the interpreter draws them too)."""
        if len(args) < len(proc.params):
            args = args + [self.input(st, p.type, f"missing argument of {proc.name}", s.loc, p.display)
                           for p in proc.params[len(args):]]
        return [self.fit_arg(a, p.type) for a, p in zip(args, proc.params)]

    def library_call(self, st: State, name: str, args: list[SVal], s: Call) -> tuple[State | None, SVal | None]:
        return self.lib.call(st, name, args, s)

    def call_result(self, frame: Frame, s: Call, st: State, name: str, ret: SVal | None) -> None:
        """Store what a call returned into its left-hand side."""
        if s.lhs is None:
            return
        if ret is None:
            ret = self.input(st, s.lhs.type, f"result of {name}()", s.loc, f"{name}()")
        self.assign(frame, st, s.lhs, ret, s.loc, f"{name}()", True)
        self.target.eq.steps[-1].call_result = True

    def function_candidates(self, target: SVal) -> list[str]:
        t = z3.simplify(target.term)
        if z3.is_bv_value(t):
            n = self.addr_funcs.get(t.as_long())
            return [n] if n else []
        return [n for n in self.addr_taken_functions()]

    def addr_taken_functions(self) -> list[str]:
        if self._addr_funcs is None:
            names: set[str] = set()
            for p in self.program.procedures.values():
                for b in p.blocks:
                    for e in b.exprs():
                        for x in walk(e):
                            if isinstance(x, AddrOf) and x.scope == "function":
                                names.add(x.name)
            self._addr_funcs = sorted(names)
        return self._addr_funcs

    def fit_arg(self, a: SVal, t: CType) -> SVal:
        want = S.sort_of(t)
        if a.term.sort() == want:
            return a
        if z3.is_bv_sort(want) and z3.is_bv_sort(a.term.sort()):
            return SVal(S.resize(a.term, a.term.size(), want.size(), True), a.pts)
        return a

    # ---------------------------------------------------------- expressions

    def eval(self, st: State, e: Expr) -> SVal:
        return self.visit(e, st)

    def visit_Const(self, e: Const, st: State) -> SVal:
        return SVal(self._once(("const", id(e)), lambda: (e, S.const(e.type, e.value)))[-1])

    def visit_Reg(self, e: Reg, st: State) -> SVal:
        key = self.key(self.frames[-1], e.name) if e.scope == "local" else "@" + e.name
        v = st.regs.get(key)
        if v is None:
            # Read before any assignment on this path (undefined): a fresh value.
            v = SVal(S.fresh(self.fresh_name(f"{self.fn}::{e.name}.undef"), e.type))
            st.regs[key] = v
        return v

    def visit_AddrOf(self, e: AddrOf, st: State) -> SVal:
        if e.scope == "function":
            return SVal(z3.BitVecVal(self.func_addr[e.name], self.pw))
        oid = self.global_objs[e.name] if e.scope == "global" else self.frames[-1].objects[e.name]
        return SVal(z3.BitVecVal(self.objects[oid].base, self.pw), frozenset({oid}))

    def visit_Load(self, e: Load, st: State) -> SVal:
        return self.load(st, self.eval(st, e.addr), e.type, self.cur_loc)

    def visit_Binary(self, e: Binary, st: State) -> SVal:
        a = self.eval(st, e.a)
        b = self.eval(st, e.b)
        x, y = self._int_value(e.a.type, a.term), self._int_value(e.b.type, b.term)
        if x is not None and y is not None and isinstance(e.type, (IntType, PointerType)):
            # Constants fold in Python: the concrete operators are the symbolic ones
            # (tests/test_agreement_ops.py), and no z3 term is built and simplified.
            try:
                folded = C.binary(e.op, e.type, x, y, e.optype)
            except ZeroDivisionError:
                folded = None
            if folded is not None:
                pts = frozenset() if e.op in _COMPARISONS else pts_union(a.pts, b.pts)
                return SVal(self._const(e.type, folded), pts)
        pts = frozenset() if e.op in _COMPARISONS else pts_union(a.pts, b.pts)
        term = self._once(("binary", id(e), a.term.get_id(), b.term.get_id()),
                          lambda: (e, a.term, b.term, _simp(S.binary(e.op, e.type, a.term, b.term, e.optype))))[-1]
        return SVal(term, pts)

    def visit_Unary(self, e: Unary, st: State) -> SVal:
        a = self.eval(st, e.a)
        x = self._int_value(e.a.type, a.term)
        if x is not None and isinstance(e.type, IntType):
            return SVal(self._const(e.type, C.unary(e.op, e.type, x)), a.pts)
        return SVal(_simp(S.unary(e.op, e.type, a.term)), a.pts)

    def visit_Cast(self, e: Cast, st: State) -> SVal:
        a = self.eval(st, e.a)
        if not (e.type.is_scalar() and e.a.type.is_scalar()):
            return a
        x = self._int_value(e.a.type, a.term)
        if x is not None and isinstance(e.type, (IntType, PointerType)):
            return SVal(self._const(e.type, C.cast(e.type, e.a.type, x)), a.pts)
        return SVal(_simp(S.cast(e.type, e.a.type, a.term)), a.pts)

    # --------------------------------------------------------------- memory

    def candidates(self, st: State, addr: SVal) -> list[SymObject]:
        a = addr.term
        if z3.is_bv_value(a):
            v = a.as_long()
            for oid in (addr.pts or st.mem.keys()):
                o = self.objects.get(oid)
                if o is not None and o.base <= v < o.base + (o.size if o.size is not None else SYMBOLIC_SIZE_SPAN):
                    return [o] if oid in st.mem else []
            return []
        if addr.pts is None:
            return [self.objects[o] for o in st.mem]
        return [self.objects[o] for o in addr.pts if o in st.mem]

    def access(self, st: State, addr: SVal, n: int, loc: SourceLoc, write: bool):
        """Candidate objects with the condition that ``addr`` hits each one and the
        offset there (see ``addresses.py``); adds the pointer-validity check."""
        cands = self.candidates(st, addr)
        tree = self.places(addr.term) if cands and not z3.is_bv_value(addr.term) else None
        out = []
        for o in cands:
            if write and o.readonly:
                continue
            inside, off = self._hit(o, addr.term, tree, n)
            if o.oid in st.alive:
                inside = z3.And(inside, st.alive[o.oid])
            inside = _simp(inside)
            if lit_false(inside):
                continue
            out.append((o, off, inside))
        valid = S.disj(*[c for _, _, c in out])
        what = "write" if write else "read"
        pid = f"{loc}:pointer"
        # The commonest causes get their own check first, so that the message is the
        # interpreter's (one property: the first failing check names the cause).
        if not is_true(valid):
            self.check(st, _simp(addr.term != 0), "pointer", pid, loc, "dereference of NULL", "deref")
            dead = [z3.And(self._hit(o, addr.term, tree, 1)[0], z3.Not(st.alive[o.oid]))
                    for o in cands if o.oid in st.alive and (o.size is None or o.size > 0)]
            if dead:
                self.check(st, _simp(z3.Not(z3.Or(*dead))), "pointer", pid, loc, "access to freed memory", "deref")
        self.check(st, valid, "pointer", pid, loc, f"out-of-bounds {what} of {n} byte{'s' if n != 1 else ''} through a pointer", "deref")
        return out

    def places(self, addr: z3.BitVecRef) -> Tree | None:
        """``address_tree`` of ``addr``, computed once per term."""
        hit = self.trees.get(addr.get_id())
        if hit is None or not hit[0].eq(addr):
            hit = (addr, address_tree(addr, self.definition, self.is_nowhere, self.subtrees))
            self.trees[addr.get_id()] = hit
        return hit[1]

    def _hit(self, o: SymObject, addr: z3.BitVecRef, tree: Tree | None, n: int) -> tuple[z3.BoolRef, Offset]:
        """The condition that an access of ``n`` bytes at ``addr`` lies inside ``o``, and
        the offset there: read off the address's places, or as arithmetic."""
        size = o.size if o.size is not None else o.size_term
        if tree is None and o.size is not None:
            a = self._int_value(self.address_type, addr)
            if a is not None:  # a constant address (a global's field): decided here, no z3 terms
                inside = o.base <= a and a - o.base <= o.size - n
                return z3.BoolVal(inside), self._const(self.address_type, a - o.base)
        if tree is None:
            addr = unname(addr, self.definition)
            off = _simp(addr - z3.BitVecVal(o.base, self.pw))
            if o.size is not None:
                fits = z3.ULE(off, o.size - n) if o.size >= n else z3.BoolVal(False)
            else:
                fits = z3.And(z3.UGE(size, n), z3.ULE(off, size - n))
            return z3.And(z3.UGE(addr, o.base), fits), off

        def fits_at(off: int) -> bool | z3.BoolRef:
            if o.size is not None:
                return off <= o.size - n
            if off >= SYMBOLIC_SIZE_SPAN:  # (the span ``candidates`` gives such a block)
                return False
            return z3.And(z3.UGE(size, n), z3.ULE(z3.BitVecVal(off, self.pw), size - n))

        inside, off = project(tree, self.pw, o.base, fits_at)
        return as_bool(inside), off

    def load(self, st: State, addr: SVal, t: CType, loc: SourceLoc) -> SVal:
        n = max(t.size, 1)
        hits = self.access(st, addr, n, loc, write=False)
        if not hits:
            return SVal(S.from_bits(t, self.arbitrary(t, n)))
        pts = frozenset()
        term = None
        if not lit_true(z3.simplify(S.disj(*[c for _, _, c in hits]))):
            # The address may hit no object: that read (a run past a failed check, in
            # CBMC's semantics) sees an arbitrary value, not some object's bytes.
            term = self.arbitrary(t, n)
        for o, off, inside in reversed(hits):
            contents = st.mem[o.oid]
            v = by_offset(off, self.pw, lambda at: self._read_through(o.load(contents, _simp(at), n)))
            term = v if term is None else z3.If(inside, v, term)
            pts = pts_union(pts, st.spts.get(o.oid, frozenset()))
        return SVal(S.from_bits(t, _simp(term)), pts)

    def _read_through(self, bits: z3.ExprRef) -> z3.ExprRef:
        """A read of named object contents (``extract`` of ``mem.x#k``) as the value the
        definitions give it, when they give one: the bytes read were stored as values,
        though the object as a whole is no value (its padding was never written, say).
        Read through the name, a branch on such a field was a branch on a symbol, and
        everything after it was guarded by a merge's if-then-else (CBMC propagates the
        constants of each field). The read stays as it is otherwise (a small term)."""
        t = _simp(bits)
        for _ in range(READ_THROUGH):
            if not z3.is_app_of(t, z3.Z3_OP_EXTRACT):
                break
            term = self.definition(t.arg(0))
            if term is None:
                break
            hi, lo = t.decl().params()
            t = _simp(z3.Extract(hi, lo, term))
        return t if _is_value(t) else bits

    def arbitrary(self, t: CType, n: int) -> z3.BitVecRef:
        """The bits of an invalid read: anything, but a pointer read so is null or
        invalid, as a nondeterministic pointer input is."""
        name = self.fresh_name("invalid.read")
        if isinstance(t, PointerType):
            return S.to_bits(t, self.invalid_pointer(name, t))
        return S.fresh(name, ArrayType(IntType(8, False), n))

    def store(self, st: State, addr: SVal, t: CType, v: SVal, loc: SourceLoc,
              when: z3.BoolRef | None = None) -> None:
        """Write ``v``; with ``when``, only if it holds (a library model writing a
        byte count it chose): the validity check is asked under ``when`` too."""
        n = max(t.size, 1)
        guard = st.guard
        if when is not None:
            st.guard = S.conj(guard, when)
        try:
            hits = self.access(st, addr, n, loc, write=True)
        finally:
            st.guard = guard
        bits = S.to_bits(t, v.term)
        if bits.size() != 8 * n:
            bits = S.resize(bits, bits.size(), 8 * n, False)
        for o, off, inside in hits:
            contents = st.mem[o.oid]
            new = by_offset(off, self.pw, lambda at: o.store(contents, _simp(at), n, bits))
            cond = inside if when is None else _simp(z3.And(inside, when))
            if not lit_true(cond):
                new = z3.If(cond, new, st.mem[o.oid])
            new = _simp(new) if o.is_blob else new
            if not _is_value(new) and o.is_blob and self.opt.name_memory:
                new = self.define(self.fresh_name(f"mem.{o.name}"), new)
            st.mem[o.oid] = new
            st.spts[o.oid] = pts_union(st.spts.get(o.oid, frozenset()), v.pts)

    def free(self, st: State, p: SVal, loc: SourceLoc) -> None:
        heap = [self.objects[o] for o in (p.pts if p.pts is not None else st.alive.keys()) if o in st.alive]
        hits = [(o, p.term == o.base) for o in heap]
        # Two checks, one property: the messages are the interpreter's, word for word.
        block = z3.Or(p.term == 0, *[c for _, c in hits])
        self.check(st, _simp(block), "pointer", f"{loc}:free", loc, FREE_NOT_HEAP, "free")
        live = z3.Or(p.term == 0, *[z3.And(c, st.alive[o.oid]) for o, c in hits]) if hits else (p.term == 0)
        self.check(st, _simp(live), "pointer", f"{loc}:free", loc, FREE_TWICE, "free")
        for o, c in hits:
            st.alive[o.oid] = _simp(z3.And(st.alive[o.oid], z3.Not(c)))




_COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})


def _int_value(t: CType, term: z3.ExprRef) -> int | None:
    """The C value of a constant integer or pointer term, else None."""
    if not z3.is_bv_value(term):
        return None
    if isinstance(t, IntType):
        return t.wrap(term.as_long())
    if isinstance(t, PointerType):
        return term.as_long()
    return None


def _simp(e: z3.ExprRef) -> z3.ExprRef:
    return z3.simplify(e) if not z3.is_const(e) else e


def _is_value(e: z3.ExprRef) -> bool:
    return z3.is_bv_value(e) or lit_true(e) or lit_false(e) or z3.is_fp_value(e)

