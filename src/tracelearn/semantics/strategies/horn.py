"""Constrained Horn clauses: the strategy that turns the program into a proof problem.

Each procedure P gets one predicate per block, ``P.B<i>(in, cur)`` (the states at
the block's entry, ``in`` being the globals and parameters P was called with), a
summary ``P.sum(in, out, ret)`` and an error predicate ``P.err(in)`` (from ``in``,
a check of P or of a procedure it calls can fail). Block bodies are run by the
symbolic semantics from a state of fresh values, exactly as the bounded model checker
runs them: the clauses are bit-precise and mean what C means here, with no second
copy of the semantics. A call is an atom of the callee's summary in the caller's
clause; recursion needs nothing more. The query asks whether the entry procedure,
after the global initialiser, reaches an error. A model of the clauses (z3's Spacer
finds one) is an inductive invariant per block and a summary per procedure: a proof
that no check fails on any path, at any depth.

What the encoding does not cover is refused with a reason (``HornSystem.refused``):
heap memory (objects come and go, they are no fixed part of a state), calls through
function pointers, address-taken locals outside a non-recursive entry procedure (a
recursive activation would share the object), floating point (Spacer has no theory
for it), and argc/argv. Nothing there is over-approximated: a refusal means no proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from ...ir.analysis import used_params
from ...ir.expr import walk
from ...ir.program import (
    Alloc, Branch, Call, Exit, Free, Goto, Procedure, Program, Return, SourceLoc, is_library_file,
)
from ...ir.types import FloatType, PointerType, VoidType
from .. import symexpr as S
from ..symbolic import Frame, SymbolicSemantics, is_false
from ..symstate import SVal, State
from ...z3dag import constants
from ..targets import ClauseTarget


@dataclass(frozen=True)
class Slot:
    """One component of a state: a register (``key`` as the semantics names it), or
    a memory object's contents (``oid``)."""

    key: str
    name: str  # the source name, for invariants
    sort: z3.SortRef
    oid: int | None = None
    pointer: bool = False
    signed: bool = True
    scope: str = "local"  # "local", "global" or "param-in"


@dataclass
class Predicate:
    func: z3.FuncDeclRef
    slots: list[Slot]
    proc: str
    kind: str  # "block", "sum", "err"
    block: int | None = None
    loc: SourceLoc | None = None
    loop_head: bool = False
    n_in: int = 0  # the first ``n_in`` slots are the values at the procedure's entry


@dataclass
class HornSystem:
    clauses: list[z3.BoolRef] = field(default_factory=list)
    predicates: list[Predicate] = field(default_factory=list)
    refused: str = ""  # why the program is outside the encoding ("" if it is not)
    unsupported: list[str] = field(default_factory=list)  # paths the semantics cut
    goals: int = 0  # clauses whose head is false
    entry: str = ""  # the entry procedure (its summary says nothing about the checks)

    @property
    def ok(self) -> bool:
        return not self.refused and not self.unsupported


def refusal(program: Program, procs: list[Procedure]) -> str:
    """Why ``program`` is outside the Horn encoding, or ""."""
    entry = program.procedures[program.entry]
    for proc in procs:
        where = f" in {proc.name}" if not is_library_file(proc.loc.file) else ""
        for blk in proc.blocks:
            for s in blk.stmts:
                if isinstance(s, (Alloc, Free)):
                    return f"heap memory (at {s.loc})"
                if isinstance(s, Call) and s.callee is None:
                    return f"a call through a function pointer (at {s.loc})"
                if isinstance(s, Call) and s.callee == program.entry:
                    return f"a call of the entry procedure {program.entry} (at {s.loc})"
            for e in blk.exprs():
                for x in walk(e):
                    if isinstance(x.type, FloatType):
                        return f"floating point{where}"
        for v in proc.params + proc.locals:
            if isinstance(v.type, FloatType):
                return f"floating point (variable {v.display}{where})"
            if v.in_memory and proc is not entry:
                return (f"a local whose address is taken, or a local array ({v.display} in {proc.name}); "
                        f"only {program.entry}'s can be")
    if used_params(entry) and entry.name == "main" and len(entry.params) >= 2:
        return "argc/argv"
    for g in program.globals.values():
        if isinstance(g.var.type, FloatType):
            return f"floating point (global {g.var.display})"
    return ""


def reachable_procedures(program: Program) -> list[Procedure]:
    seen: dict[str, Procedure] = {}
    todo = [program.init, program.entry]
    while todo:
        name = todo.pop()
        proc = program.procedures.get(name)
        if proc is None or name in seen:
            continue
        seen[name] = proc
        for blk in proc.blocks:
            for s in blk.stmts:
                if isinstance(s, Call) and s.callee is not None:
                    todo.append(s.callee)
    return list(seen.values())


class HornEncoding:
    """Builds the Horn clauses of a program with the symbolic semantics."""

    def __init__(self, sem: SymbolicSemantics, goal_kinds: frozenset[str]) -> None:
        assert isinstance(sem.target, ClauseTarget)
        self.sem = sem
        self.target: ClauseTarget = sem.target
        self.goal_kinds = goal_kinds  # checks whose failure is an error (the others cut the path)
        self.system = HornSystem()
        self.gslots: list[Slot] = []
        self.procs: dict[str, _Proc] = {}
        self.relations: set[str] = set()  # names of the predicates (never quantified)

    # ------------------------------------------------------------------ run

    def run(self) -> HornSystem:
        sem = self.sem
        program = sem.program
        procs = reachable_procedures(program)
        self.system.entry = program.entry
        why = refusal(program, procs)
        if why:
            self.system.refused = why
            return self.system
        init = State(z3.BoolVal(True))
        sem.init_globals(init)
        self.gslots = self.global_slots()
        for proc in procs:
            self.procs[proc.name] = self.declare(proc)
        for proc in procs:
            self.encode(self.procs[proc.name])
        self.query(init)
        self.system.unsupported = list(dict.fromkeys(self.target.eq.unsupported))
        return self.system

    def global_slots(self) -> list[Slot]:
        out = []
        for name, g in sorted(self.sem.program.globals.items()):
            t = g.var.type
            if name in self.sem.global_objs:
                oid = self.sem.global_objs[name]
                sort = self.sem.objects[oid].empty().sort()
                out.append(Slot(f"mem:{oid}", g.var.display, sort, oid=oid, scope="global"))
            else:
                out.append(Slot("@" + name, g.var.display, S.sort_of(t), pointer=isinstance(t, PointerType),
                                signed=getattr(t, "signed", True), scope="global"))
        return out

    # ------------------------------------------------------------ declaring

    def declare(self, proc: Procedure) -> "_Proc":
        sem = self.sem
        st = State(z3.BoolVal(True))
        for s in self.gslots:
            self.put(st, s, z3.Const(f"{s.name}!in", s.sort))
        params = [S.fresh(f"{proc.name}::{p.display}!in", p.type) for p in proc.params]
        frame, st = sem.enter(st, proc, [SVal(v, None if isinstance(p.type, PointerType) else frozenset())
                                         for p, v in zip(proc.params, params)], proc.loc, entry=True)
        sem.leave(frame)
        pslots = [Slot(sem.key(frame, p.name) + "!in", p.display, S.sort_of(p.type),
                       pointer=isinstance(p.type, PointerType), signed=getattr(p.type, "signed", True),
                       scope="param-in") for p in proc.params]
        lslots = [Slot(sem.key(frame, v.name), v.display, S.sort_of(v.type), pointer=isinstance(v.type, PointerType),
                       signed=getattr(v.type, "signed", True))
                  for v in proc.params + proc.locals if not v.in_memory]
        for v in proc.locals:
            if v.in_memory:
                oid = frame.objects[v.name]
                lslots.append(Slot(f"mem:{oid}", v.display, st.mem[oid].sort(), oid=oid))
        in_slots = self.gslots + pslots
        cur_slots = self.gslots + lslots
        heads = {dst for b in proc.blocks for dst in b.successors() if dst <= b.index}
        blocks = [self.predicate(f"{proc.name}.B{b.index}", in_slots + cur_slots, proc.name, "block", b.index,
                                 b.loc, b.index in heads, len(in_slots)) for b in proc.blocks]
        ret = [] if isinstance(proc.ret_type, VoidType) else [
            Slot("ret", "\\result", S.sort_of(proc.ret_type), signed=getattr(proc.ret_type, "signed", True))]
        summary = self.predicate(f"{proc.name}.sum", in_slots + self.gslots + ret, proc.name, "sum",
                                 loc=proc.loc, n_in=len(in_slots))
        err = self.predicate(f"{proc.name}.err", in_slots, proc.name, "err", loc=proc.loc, n_in=len(in_slots))
        entry_vals = {s.key: v for s, v in zip(pslots, params)}
        return _Proc(proc, frame, in_slots, cur_slots, ret, blocks, summary, err, st, entry_vals)

    def predicate(self, name: str, slots: list[Slot], proc: str, kind: str, block: int | None = None,
                  loc: SourceLoc | None = None, loop_head: bool = False, n_in: int = 0) -> Predicate:
        p = Predicate(z3.Function(name, *[s.sort for s in slots], z3.BoolSort()), slots, proc, kind, block, loc,
                      loop_head, n_in)
        self.system.predicates.append(p)
        self.relations.add(p.func.name())
        return p

    # ------------------------------------------------------------ clauses

    def clause(self, body: list[z3.BoolRef], head: z3.BoolRef | None) -> None:
        """``body -> head`` (``None``: false), its free constants universally quantified."""
        parts = [b for b in body if not z3.is_true(b)]
        if any(z3.is_false(b) for b in parts):
            return
        conj = z3.And(*parts) if len(parts) > 1 else (parts[0] if parts else z3.BoolVal(True))
        if head is None:
            self.system.goals += 1
        fact = z3.Implies(conj, head if head is not None else z3.BoolVal(False))
        free = [c for c in constants([fact]) if c.decl().name() not in self.relations]
        self.system.clauses.append(z3.ForAll(free, fact) if free else fact)

    @staticmethod
    def put(st: State, slot: Slot, v: z3.ExprRef) -> None:
        if slot.oid is not None:
            st.mem[slot.oid] = v
            st.spts[slot.oid] = None
        else:
            st.regs[slot.key] = SVal(v, None if slot.pointer else frozenset())

    def get(self, st: State, slot: Slot) -> z3.ExprRef:
        if slot.oid is not None:
            v = st.mem[slot.oid]
        else:
            sv = st.regs.get(slot.key)
            if sv is None:  # never assigned on this path: any value
                return z3.FreshConst(slot.sort, slot.name + "!undef")
            v = sv.term
        if v.sort() != slot.sort and z3.is_bv_sort(v.sort()) and z3.is_bv_sort(slot.sort):
            v = S.resize(v, v.size(), slot.sort.size(), slot.signed)
        return v

    def encode(self, pc: "_Proc") -> None:
        """The clauses of one procedure: entry, each block, returns, errors."""
        sem = self.sem
        proc = pc.proc
        ins = [z3.Const(f"{s.name}!in", s.sort) if s.scope != "param-in" else pc.entry_vals[s.key]
               for s in pc.in_slots]
        # entry: the globals and parameters as passed, the other locals undefined, memory
        # locals as ``enter`` made them
        first = []
        for i, s in enumerate(pc.cur_slots):
            if i < len(self.gslots):
                first.append(ins[i])
            elif s.oid is not None:
                first.append(pc.entry_state.mem[s.oid])
            elif s.key + "!in" in pc.entry_vals:
                first.append(pc.entry_vals[s.key + "!in"])
            else:
                first.append(z3.FreshConst(s.sort, s.name + "!undef"))
        self.clause([], pc.blocks[0].func(*ins, *first))
        sem.frames.append(pc.frame)
        sem.user_site = proc.loc if is_library_file(proc.loc.file) else None
        try:
            for blk in proc.blocks:
                self.encode_block(pc, blk, ins)
        finally:
            sem.frames.pop()
            sem.user_site = None

    def encode_block(self, pc: "_Proc", blk, ins: list[z3.ExprRef]) -> None:
        sem = self.sem
        eq = self.target.eq
        cur = [z3.Const(f"{s.name}!B{blk.index}.{i}", s.sort) for i, s in enumerate(pc.cur_slots)]
        st = State(z3.BoolVal(True))
        for s, v in zip(pc.cur_slots, cur):
            self.put(st, s, v)
        start = len(eq.constraints)
        atoms: list[z3.BoolRef] = [pc.blocks[blk.index].func(*ins, *cur)]
        seen = len(eq.steps)
        err = pc.err.func(*ins)
        frame = pc.frame

        def errors() -> None:
            nonlocal seen
            for i in range(seen, len(eq.steps)):
                s = eq.steps[i]
                if s.kind == "check" and s.prop_kind in self.goal_kinds:
                    self.clause(atoms + eq.constraints[start:self.target.at[i]] + [s.violation], err)
            seen = len(eq.steps)

        for s in blk.stmts:
            if isinstance(s, Call):
                st = self.call(pc, frame, s, st, atoms, start, err)
            else:
                st = sem.exec_stmt(frame, s, st)
            errors()
            if st is None or is_false(st.guard):
                return
        t = blk.term
        sem.cur_loc = t.loc
        if isinstance(t, Goto):
            errors()
            self.clause(atoms + eq.constraints[start:] + [st.guard], pc.blocks[t.target].func(*ins, *self.values(pc, st)))
        elif isinstance(t, Branch):
            c = sem.decision(frame, st, t)
            errors()
            body = atoms + eq.constraints[start:] + [st.guard]
            vals = self.values(pc, st)
            self.clause(body + [c], pc.blocks[t.then].func(*ins, *vals))
            self.clause(body + [z3.Not(c)], pc.blocks[t.else_].func(*ins, *vals))
        elif isinstance(t, Return):
            v = sem.return_value(st, t)
            errors()
            ret = []
            if pc.ret:
                slot = pc.ret[0]
                term = v.term if v is not None else z3.FreshConst(slot.sort, "ret!undef")
                if term.sort() != slot.sort and z3.is_bv_sort(term.sort()) and z3.is_bv_sort(slot.sort):
                    term = S.resize(term, term.size(), slot.sort.size(), slot.signed)
                ret = [term]
            outs = [self.get(st, s) for s in self.gslots]
            self.clause(atoms + eq.constraints[start:] + [st.guard], pc.summary.func(*ins, *outs, *ret))
        elif isinstance(t, Exit):
            sem.exit(frame, st, t)
            errors()

    def values(self, pc: "_Proc", st: State) -> list[z3.ExprRef]:
        return [self.get(st, s) for s in pc.cur_slots]

    def call(self, pc: "_Proc", frame: Frame, s: Call, st: State, atoms: list, start: int,
             err: z3.BoolRef) -> State | None:
        sem = self.sem
        args = sem.call_args(st, s)
        callee = self.procs.get(s.callee or "")
        if callee is None:  # a library model
            st2, ret = sem.library_call(st, s.callee, args, s)
            if st2 is None:
                return None
            sem.call_result(frame, s, st2, s.callee, ret)
            return st2
        cargs = sem.procedure_args(st, callee.proc, args, s)
        gins = [self.get(st, g) for g in self.gslots]
        ins = gins + [a.term for a in cargs]
        eq = self.target.eq
        self.clause(atoms + eq.constraints[start:] + [st.guard, callee.err.func(*ins)], err)
        outs = [z3.FreshConst(g.sort, f"{g.name}!after") for g in self.gslots]
        ret = [z3.FreshConst(r.sort, f"{callee.proc.name}()") for r in callee.ret]
        atoms.append(callee.summary.func(*ins, *outs, *ret))
        st = st.copy()
        for g, v in zip(self.gslots, outs):
            self.put(st, g, v)
        rv = SVal(ret[0], None if isinstance(callee.proc.ret_type, PointerType) else frozenset()) if ret else None
        sem.call_result(frame, s, st, callee.proc.name, rv)
        return st

    # --------------------------------------------------------------- query

    def query(self, init: State) -> None:
        """The program fails: the initialiser fails, or the entry procedure does."""
        sem = self.sem
        program = sem.program
        eq = self.target.eq
        g0 = [self.get(init, g) for g in self.gslots]
        ini = self.procs[program.init]
        self.clause([ini.err.func(*g0)], None)
        g1 = [z3.FreshConst(g.sort, f"{g.name}!init") for g in self.gslots]
        after_init = ini.summary.func(*g0, *g1)
        st = State(z3.BoolVal(True))
        for g, v in zip(self.gslots, g1):
            self.put(st, g, v)
        entry = self.procs[program.entry]
        start = len(eq.constraints)
        args = sem.entry_args(st, entry.proc)
        ins = g1 + [sem.fit_arg(a, p.type).term for a, p in zip(args, entry.proc.params)]
        self.clause([after_init] + eq.constraints[start:] + [st.guard, entry.err.func(*ins)], None)


@dataclass
class _Proc:
    proc: Procedure
    frame: Frame
    in_slots: list[Slot]
    cur_slots: list[Slot]
    ret: list[Slot]
    blocks: list[Predicate]
    summary: Predicate
    err: Predicate
    entry_state: State
    entry_vals: dict[str, z3.ExprRef]
