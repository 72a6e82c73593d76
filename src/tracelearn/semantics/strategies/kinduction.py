"""k-induction: its step case, and the invariants that strengthen it, as programs for
the bounded model checker.

The base case is the model checker's own run: at bound k no check fails on a path that
goes round the loop at most k times. The step case asks whether k loop-head states in a
row whose iterations fail no check can be followed by one that does, from *any* state
satisfying the loop invariants known: the loop head gets an arrival counter, the first
arrival sets every variable to an arbitrary value (then assumes the invariants),
arrivals past k + 1 are cut, and the symbolic semantics counts a failed check only once
the counter is past k (``SemanticsOptions.armed``). No failing check on any path of
that program, plus the base case at bound k, is a proof.

The invariants come from candidates (Houdini): equalities and orders between the
program's integer variables, and bounds by the constants its code uses. A candidate
stays if it holds at the first arrival (checked on the program itself) and, together
with the others left, after one more iteration from any state satisfying all of them
(checked on the program started from such a state); the survivors are inductive, so
they hold at every arrival of every run until a check fails.

Only what makes the argument hold is accepted (``kinduction_loop`` says why not
otherwise): one loop in the whole program, in the entry procedure (each arrival at its
head is one state of one run), no recursion, and no memory the loop could write (the
arbitrary state is a value for each register variable; arrays, address-taken
variables and the heap would need one for each memory cell: those programs are left to
the Horn-clause proof).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from ...ir.expr import Binary, Const, Expr, Reg, walk
from ...ir.program import (
    Alloc, Assert, Assign, Assume, Block, Branch, Call, Goto, GlobalVar, Nondet, Program, SourceLoc, Variable,
)
from ...ir.types import IntType
from .horn import reachable_procedures

COUNTER = "__tl_kind_arrivals"
CANDIDATE = "candidate"  # the check kind of a candidate invariant
_INT = IntType(32, True, "int")
MAX_CONSTANTS = 8  # of the code's own constants, as bounds of candidate invariants
# Library models with state of their own (a file table, the heap), which the arbitrary
# state at the loop head would not cover.
_STATEFUL = frozenset({"fopen", "fclose", "realloc", "malloc", "calloc", "free"})


@dataclass(frozen=True)
class KLoop:
    """The loop k-induction works on: block ``head`` of procedure ``proc``."""

    proc: str
    head: int
    loc: SourceLoc


@dataclass(frozen=True)
class Candidate:
    expr: Expr  # 0/1
    text: str  # as C


def kinduction_loop(program: Program) -> KLoop | str:
    """The program's one loop, or why k-induction does not apply."""
    procs = reachable_procedures(program)
    if _recursive(program):
        return "recursion"
    heads = sorted({(p.name, dst) for p in procs for b in p.blocks for dst in b.successors() if dst <= b.index})
    if not heads:
        return "no loop"
    if len(heads) > 1:
        return f"{len(heads)} loops (k-induction here takes programs with one)"
    name, head = heads[0]
    if name != program.entry:
        return f"the loop is in {name}, not in {program.entry}"
    for p in procs:
        for b in p.blocks:
            for s in b.stmts:
                if isinstance(s, Alloc):
                    return f"heap memory (at {s.loc})"
                if isinstance(s, Call) and s.callee is None:
                    return f"a call through a function pointer (at {s.loc})"
                if isinstance(s, Call) and s.callee in _STATEFUL:
                    return f"a call of {s.callee} (at {s.loc}): library state the arbitrary state would not cover"
    entry = program.procedures[program.entry]
    for v in entry.params + entry.locals:
        if v.in_memory:
            return f"{v.display} lives in memory (an array or an address-taken variable)"
    for g in program.globals.values():
        if g.var.in_memory and not g.readonly:
            return f"global {g.var.display} lives in memory"
    return KLoop(name, head, entry.blocks[head].loc)


def instrument(program: Program, loop: KLoop, *, arbitrary: bool, assumed: list[Candidate],
               checked: list[Candidate], check_at: int, max_arrivals: int) -> Program:
    """``program`` with an arrival counter at the loop head: at the first arrival every
    variable set to any value (``arbitrary``) and then ``assumed`` assumed; at arrival
    ``check_at`` each of ``checked`` asserted (kind ``candidate``); arrivals past
    ``max_arrivals`` cut."""
    proc = copy.deepcopy(program.procedures[loop.proc])
    h, loc = loop.head, loop.loc
    n = Reg(COUNTER, _INT, "global")

    def moved(t: int) -> int:  # block indices from the head on move up by three
        return t + 3 if t >= h else t

    for b in proc.blocks:
        b.index = moved(b.index)
        t = b.term
        if isinstance(t, Goto):
            t.target = h if t.target == h else moved(t.target)
        elif isinstance(t, Branch):
            t.then = h if t.then == h else moved(t.then)
            t.else_ = h if t.else_ == h else moved(t.else_)
    arrive = Block(h, [Assign(n, Binary("add", _INT, n, Const(_INT, 1)), loc, COUNTER, hidden=True)],
                   Branch(Binary("eq", _INT, n, Const(_INT, 1), _INT), h + 1, h + 2, loc, text="first arrival"),
                   loc, "k-induction: arrival")
    first: list = []
    if arbitrary:
        first += [Nondet(Reg(v.name, v.type, "local"), loc, f"k-induction: any value of {v.display}", v.display)
                  for v in proc.params + proc.locals]
        first += [Nondet(Reg(name, g.var.type, "global"), loc, f"k-induction: any value of {g.var.display}",
                         g.var.display)
                  for name, g in sorted(program.globals.items()) if not g.var.in_memory]
    first += [Assume(c.expr, loc) for c in assumed]
    then = [Assert(Binary("or", _INT, Binary("ne", _INT, n, Const(_INT, check_at), _INT), c.expr), loc,
                   f"{loc}:candidate{i}", CANDIDATE, c.text) for i, c in enumerate(checked)]
    then.append(Assume(Binary("le", _INT, n, Const(_INT, max_arrivals), _INT), loc))
    proc.blocks[h:h] = [arrive, Block(h + 1, first, Goto(h + 2, loc), loc, "k-induction: first arrival"),
                        Block(h + 2, then, Goto(h + 3, loc), loc, "k-induction: every arrival")]
    assert all(b.index == i for i, b in enumerate(proc.blocks))
    procedures = dict(program.procedures)
    procedures[loop.proc] = proc
    globals_ = dict(program.globals)
    globals_[COUNTER] = GlobalVar(Variable(COUNTER, COUNTER, _INT, False, loc))
    return replace(program, procedures=procedures, globals=globals_)


def step_case(program: Program, loop: KLoop, k: int, invariants: list[Candidate]) -> Program:
    """The step case for ``k`` (run it with ``armed=(COUNTER, k)``)."""
    return instrument(program, loop, arbitrary=True, assumed=invariants, checked=[], check_at=0,
                      max_arrivals=k + 1)


def candidates(program: Program, loop: KLoop) -> list[Candidate]:
    """Candidate loop invariants over the entry procedure's integer variables and the
    scalar globals: ``x == y``, ``x <= y``, ``x >= y`` for variables of one type,
    ``x >= c``, ``x <= c`` for the constants the code uses (the few smallest), and the
    parity of each (``x % 2 == 0`` or 1: counting by two)."""
    proc = program.procedures[loop.proc]
    regs: list[tuple[Reg, str]] = [(Reg(v.name, v.type, "local"), v.display) for v in proc.params + proc.locals
                                   if isinstance(v.type, IntType) and not v.type.is_bool
                                   and not v.name.startswith("__")]  # the frontend's temporaries
    regs += [(Reg(name, g.var.type, "global"), g.var.display) for name, g in sorted(program.globals.items())
             if isinstance(g.var.type, IntType) and not g.var.in_memory and not name.startswith("__")]
    consts: set[int] = {0}
    for b in proc.blocks:
        for e in b.exprs():
            for x in walk(e):
                if isinstance(x, Const) and isinstance(x.type, IntType) and abs(int(x.value)) < (1 << 30):
                    consts.add(int(x.value))
    bounds = sorted(consts, key=lambda c: (abs(c), c))[:MAX_CONSTANTS]
    out: list[Candidate] = []

    def rel(op: str, a: Expr, b: Expr, text: str) -> None:
        out.append(Candidate(Binary(op, _INT, a, b, a.type), text))

    sym = {"eq": "==", "le": "<=", "ge": ">="}
    for i, (x, xs) in enumerate(regs):
        for y, ys in regs[i + 1:]:
            if x.type == y.type:
                for op in ("eq", "le", "ge"):
                    rel(op, x, y, f"{xs} {sym[op]} {ys}")
        t = x.type
        assert isinstance(t, IntType)
        for r in (0, 1):
            rel("eq", Binary("rem", t, x, Const(t, 2)), Const(t, r), f"{xs} % 2 == {r}")
        for c in bounds:
            if t.min <= c <= t.max:
                for op in ("le", "ge"):
                    rel(op, x, Const(t, c), f"{xs} {sym[op]} {c}")
    return out


def _recursive(program: Program) -> bool:
    calls = {p.name: {s.callee for b in p.blocks for s in b.stmts if isinstance(s, Call) and s.callee}
             for p in reachable_procedures(program)}
    state: dict[str, int] = {}  # 1: on the DFS stack, 2: done

    def cyclic(name: str) -> bool:
        state[name] = 1
        for c in calls.get(name, ()):
            if state.get(c) == 1 or (c not in state and cyclic(c)):
                return True
        state[name] = 2
        return False

    return any(name not in state and cyclic(name) for name in calls)
