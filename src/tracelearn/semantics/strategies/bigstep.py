"""Big steps of a stream filter (Sigma*, Sec. 3): a concolic run of a filter function
on a concrete input, cut into one step per input element and relativised to the
lookback window.

The filter reads its input with ``tl_in()``/``tl_peek(k)``/``tl_eof()`` and writes
with ``tl_out(e)`` (declared in the bundled ``tracelearn.h``). The path strategy stops
before each of these calls and this module performs them, because their meaning is
the stream position, which only the run knows:

- element ``i`` of the input is the symbol ``in!i``; at position ``p``, ``tl_in()``
  gives element ``p`` and moves to ``p + 1``, ``tl_peek(k)`` gives element ``p + k``
  (``k`` a constant); a read past the end of the input stops the filter;
- ``tl_eof()`` is 1 at the end of the input (``p`` is its length), 0 otherwise;
- ``tl_out(e)`` appends the term ``e`` to the output.

Big step ``i`` starts at the first stream operation that needs element ``i`` (the
filter meets it: ``tl_peek(k)`` needs ``p + k``, the others ``p``) and ends before the
first one that needs element ``i + 1``: lookahead reduced to lookback, as in Sigma*. Its guard is
the conjunction of the branch conditions taken on the way, and its outputs the terms
written; both are then *relativised*: ``in!(i - j)`` becomes the window variable
``w<j>`` (``w0`` is the element of the step, ``w1`` the one before, ...). Outputs
written before the first read are the *initial* output (constants); what runs after
``tl_eof()`` returned 1 is the *final* step, relativised as a step at position ``n``
(its ``w0`` is never read). Every branch is decided by the input: no solver is asked.
"""

from __future__ import annotations

import math
import re
import time

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import z3

from ...errors import TracelearnError, UnsupportedError
from ...ir.analysis import Counter, counters, live_locals
from ...ir.expr import Const, Reg
from ...ir.program import Call, Procedure, Program, SourceLoc
from ...ir.types import IntType
from ...bvterm import FiniteValues, TermFacts, window_vars
from ...z3dag import all_of, names as term_names, signed, substitute
from .. import symexpr as S
from ..symbolic import SemanticsOptions, SymbolicSemantics
from ..symstate import SVal
from ..equation import Step
from ..targets import INLINE_RLIMIT, PathTarget
from .path import PathEnd, PathExplorer, PathOptions, PathPoint

STREAM_OPS = frozenset({"tl_in", "tl_peek", "tl_eof", "tl_out"})


@dataclass(frozen=True)
class Element:
    """The type of a stream element: a signed integer of ``bits`` bits (``char`` is 8)."""

    bits: int = 8
    int8: bool = False  # 8 bits read as numbers, not characters

    @staticmethod
    def named(text: str) -> "Element":
        if text == "char":
            return Element(8)
        if text.startswith("int") and text[3:].isdigit() and int(text[3:]) in (8, 16, 32):
            return Element(int(text[3:]), int8=text == "int8")
        raise TracelearnError(f"unknown element type '{text}' (expected char, int8, int16 or int32)")

    @property
    def chars(self) -> bool:
        """Elements shown as character literals."""
        return self.bits == 8 and not self.int8

    @property
    def name(self) -> str:
        return "char" if self.chars else f"int{self.bits}"

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1))

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1

    def symbol(self, i: int) -> z3.BitVecRef:
        return z3.BitVec(f"in!{i}", self.bits)

    def window(self, j: int) -> z3.BitVecRef:
        return z3.BitVec(f"w{j}", self.bits)

    def wrap(self, v: int) -> int:
        v &= (1 << self.bits) - 1
        return v - (1 << self.bits) if v >> (self.bits - 1) else v


OUT_BITS = 32  # tl_out's parameter and tl_in's result are int


@dataclass
class BigStep:
    """One big step, relativised: its guard (the branch conditions in path order, over
    ``w0..wk``) and its output terms (32-bit)."""

    guard: tuple[z3.BoolRef, ...]
    outputs: tuple[z3.ExprRef, ...]
    text: Callable[[z3.ExprRef], str] | None = field(default=None, compare=False, repr=False)  # a term's sexpr

    @cached_property
    def predicate(self) -> z3.BoolRef:
        return all_of(list(self.guard))

    @cached_property
    def key(self) -> str:
        """The guard as text: Sigma* compares predicates syntactically (kept: a walk
        answers many runs with one step's object)."""
        text = self.text or z3.ExprRef.sexpr
        return " & ".join(text(g) for g in self.guard) or "true"


@dataclass
class StreamRun:
    initial: tuple[int, ...]  # outputs before the first read
    steps: list[BigStep]  # one per input element
    final: BigStep | None  # after tl_eof() returned 1 (None: stopped at a read, or returned)
    outputs: list[int]  # the concrete output, element by element
    end: str  # how the filter ended: "read" (a read at the end), "return", "final"
    lookback: int  # the largest distance back any guard or output of a step reaches
    statements: int = 0


class FilterError(UnsupportedError):
    """The filter is outside the class Sigma* learns (with the reason and where)."""


@dataclass(frozen=True)
class FailingCheck:
    """A check a big step's path can fail, with the window's values of one such input
    (``values[j]``: the element j before the one the step met)."""

    kind: str
    message: str
    loc: str
    values: tuple[int, ...]


class FilterTarget(PathTarget):
    """The path target of a filter's runs and big steps: a check that can fail on the
    path (a division by zero, say) puts the filter outside the class. The semantics goes
    on past a check assuming it holds: without this, a filter that divides by an
    element was learned with z3's value of x / 0 (and proved).

    A run from the program's start (``window`` None) raises at once: its path is one
    inputs take. A big step starts from a boundary whose state is read back over the
    window, and the window may hold values no input leaves there (snippet_escape's
    held tag), so the step's failing checks are kept as candidates (``failing``) with
    the window's values of one failing input, for the caller to run concretely."""

    def __init__(self, window: list[z3.BitVecRef] | None = None, **kwargs) -> None:  # noqa: ANN003 - PathTarget's
        super().__init__(**kwargs)
        self.window = window
        self.failing: dict[str, FailingCheck] = {}  # property id -> the first candidate

    def record(self, s: Step) -> int:
        n = super().record(s)
        if s.kind != "check" or s.violation is None or (self.window is not None and s.prop_id in self.failing):
            return n
        if self.check([s.violation]) == z3.sat:
            if self.window is None:
                raise FilterError(f"the filter fails on some input ({s.prop_kind}: {s.message}): a filter must "
                                  "write an output for every input", str(s.loc))
            m = self.model()
            values = tuple(m.eval(w, model_completion=True).as_signed_long() for w in self.window)
            self.failing[s.prop_id] = FailingCheck(s.prop_kind, s.message, str(s.loc), values)
        return n


@dataclass
class BigStepOptions:
    max_statements: int = 1_000_000  # per run: an input-free loop ends here, reported
    library_bound: int = 32
    # counters (``ir.analysis.Counter``) one value above their constants in a boundary's
    # key (``StepExplorer``); off when one may wrap inside a step (``CounterMayWrap``)
    counters: bool = True
    # outputs of one path of a big step, past which exploring it stops (None: no bound);
    # from an abstract state (``abstract_steps``) a loop bounded by an abstracted
    # register would otherwise run to the statement bound
    max_outputs: int | None = None


@dataclass
class _Run:
    n: int
    values: list[int]
    pos: int = 0  # the next element to consume
    met: int = -1  # the last position whose element the filter has met
    guard: list[z3.BoolRef] = field(default_factory=list)
    outs: list[z3.ExprRef] = field(default_factory=list)
    subst: list[tuple[z3.ExprRef, z3.ExprRef]] = field(default_factory=list)


class FilterRunner:
    """Concolic runs of one filter function (entry ``function`` of ``program``)."""

    def __init__(self, program: Program, function: str, element: Element,
                 options: BigStepOptions | None = None) -> None:
        if function not in program.procedures:
            raise TracelearnError(f"no definition of the filter function '{function}'")
        self.program = program
        self.function = function
        self.element = element
        self.opt = options or BigStepOptions()
        self.sem = SymbolicSemantics(program, SemanticsOptions(name_values=False), FilterTarget(inline_rlimit=INLINE_RLIMIT))
        self.explorer = PathExplorer(self.sem, PathOptions(eager=False, max_statements=self.opt.max_statements,
                                                           library_bound=self.opt.library_bound, repeats_end=True))
        self.root: PathPoint | None = None
        self.defs = Definitions(self.sem.target)
        self._node = None  # the solver frame the run is at (for reading terms back)
        self.runs = 0
        self.statements = 0
        self._liveness: dict[str, dict[tuple[int, int], frozenset[str]]] = {}
        self._finite = FiniteValues(MAX_FLAG_CASES)  # the few values of flags (``flags``)

    def run(self, values: list[int]) -> StreamRun:
        """The filter on input ``values``, cut into big steps."""
        el = self.element
        values = [el.wrap(v) for v in values]
        if self.root is None:
            self.root = self.explorer.start(self.function)
        self.defs.forget()  # one run's frames at a time
        self.runs += 1
        r = _Run(len(values), values)
        steps: list[BigStep] = []
        initial: list[int] = []
        concrete: list[int] = []
        in_final = False
        lookback = 0
        point = self.root

        def close_step() -> None:
            nonlocal lookback
            if r.met >= 0:
                step, dist = self._relativise(r, r.met)
                lookback = max(lookback, dist)
                steps.append(step)
            r.guard, r.outs = [], []

        while True:
            end = self.explorer.guided(point, lambda conds: self._pick(conds, r), _is_stream_op)
            if end.status != "stopped":
                if end.status == "exit":
                    how = "return"
                    break
                if end.status == "limit":
                    raise FilterError(_endless(end, self.opt.max_statements), self._where(end))
                raise FilterError(f"the filter's run ended unexpectedly ({end.status}: {end.reason})",
                                  self._where(end))
            assert end.point is not None
            point = end.point
            self.statements = point.statements
            call = _stmt(point)
            name = call.callee
            if name == "tl_out":
                arg = self._expand(self.explorer.call_args(point)[0].term)
                r.outs.append(arg)
                v = self._concrete(arg, r)
                (initial if r.met < 0 else concrete).append(v)
                point = self.explorer.returned(point, None)
                continue
            # the position the operation needs: tl_peek(k) looks k elements ahead
            at = r.pos + (peek_offset(self._expand(self.explorer.call_args(point)[0].term), call.loc)
                          if name == "tl_peek" else 0)
            while r.met < at and r.met < r.n:  # the filter meets element met + 1: a new big step
                if r.met >= 0:
                    self._fix_flags(point, r)
                close_step()
                r.met += 1
                if r.met < r.n:
                    r.subst.append((el.symbol(r.met), z3.BitVecVal(r.values[r.met], el.bits)))
            if at >= r.n:
                if name != "tl_eof":
                    how = "read"  # a read at the end of the input stops the filter
                    break
                in_final = True
                point = self.explorer.returned(point, SVal(z3.BitVecVal(1, OUT_BITS)))
                continue
            if name == "tl_eof":
                point = self.explorer.returned(point, SVal(z3.BitVecVal(0, OUT_BITS)))
                continue
            value = z3.SignExt(OUT_BITS - el.bits, el.symbol(at))
            if name == "tl_in":
                r.pos += 1
            point = self.explorer.returned(point, SVal(value))
        final: BigStep | None = None
        if in_final:
            final, dist = self._relativise(r, r.n)
            lookback = max(lookback, dist)
            how = "final"
        elif how == "return" and r.met < r.n:
            if r.met < 0:
                r.guard, r.outs = [], []
            else:
                close_step()
        # A filter that returned before reading everything ignores the rest.
        while len(steps) < r.n:
            steps.append(BigStep((), ()))
        return StreamRun(tuple(initial), steps, final, initial + concrete, how, lookback, self.statements)

    # ------------------------------------------------------------------ helpers

    def _fix_flags(self, point: PathPoint, r: _Run) -> None:
        """The flags of the state (``flags``) set to their values on this input, each
        value a condition of the step that ends here, as ``StepExplorer`` splits it."""
        def reads(t: z3.ExprRef) -> bool:
            return any(n.startswith("in!") for n in term_names(t))

        found = flags(point, alive_registers(point, self._liveness), self._expand, reads, self._finite,
                      kept_object(point, self.sem))
        if not found or math.prod(len(vals) for _, _, vals in found) > MAX_FLAG_CASES:
            return  # (as ``flag_cases``: too many cases, the state holds the terms)
        regs, mem = dict(point.state.regs), dict(point.state.mem)
        s = z3.Solver()
        s.set("timeout", FLAG_SOLVER_MS)
        s.add(*r.guard)
        for key, t, _ in found:
            v = self._concrete(t, r)
            c = S.fold_sign_ext(simp(self._finite.condition(t, v & ((1 << t.size()) - 1))))
            if s.check(z3.Not(c)) != z3.unsat:  # (not decided by the path already)
                r.guard.append(c)
                s.add(c)
            if key.startswith("mem:"):
                mem[int(key[4:])] = z3.BitVecVal(v, t.size())
            else:
                regs[key] = SVal(z3.BitVecVal(v, t.size()), regs[key].pts)
        point.state = point.state.copy()
        point.state.regs, point.state.mem = regs, mem

    def _expand(self, t: z3.ExprRef) -> z3.ExprRef:
        """``t`` over the input symbols (and constants) only."""
        return self.defs.expand(t, self.sem.target.node)

    def _pick(self, conds: list[z3.BoolRef], r: _Run) -> int:
        conds = [self._expand(c) for c in conds]
        for i, c in enumerate(conds):
            v = simp(substitute(c, r.subst)) if r.subst else simp(c)
            if z3.is_true(v):
                c = flag_comparison(c, self._finite)
                if not z3.is_true(c):
                    r.guard.append(c)
                return i
            if not z3.is_false(v):
                raise FilterError(not_input("a branch", c), self.sem.cur_loc)
        raise FilterError("no branch can be taken", self.sem.cur_loc)

    def _relativise(self, r: _Run, at: int) -> tuple[BigStep, int]:
        el = self.element
        terms = [simp(g) for g in r.guard] + list(r.outs)
        names = {int(n[3:]) for t in terms for n in term_names(t) if n.startswith("in!")}
        dist = max((at - i for i in names), default=0)
        sub = [(el.symbol(i), el.window(at - i)) for i in names]
        rel = [S.fold_sign_ext(simp(substitute(t, sub)) if sub else t) for t in terms]
        guard = tuple(g for g in rel[:len(r.guard)] if not z3.is_true(g))
        return BigStep(guard, tuple(rel[len(r.guard):])), dist

    def _unrelativise(self, t: z3.ExprRef, r: _Run, at: int) -> z3.ExprRef:
        el = self.element
        sub = [(el.window(j), el.symbol(at - j)) for j in range(0, at + 1)]
        return substitute(t, sub) if sub else t

    def _concrete(self, t: z3.ExprRef, r: _Run) -> int:
        v = simp(substitute(t, r.subst)) if r.subst else simp(t)
        if not z3.is_bv_value(v):
            raise FilterError(not_input("an output", t), self.sem.cur_loc)
        return v.as_signed_long()

    def _where(self, end: PathEnd) -> SourceLoc | None:
        return end.point.at() if end.point is not None else self.sem.cur_loc


class Definitions:
    """The semantics names the values it assigns that are not small terms (``x#3 ==
    term`` in the path condition); terms are read back over the inputs through these
    definitions, which the solver frames of the path hold (collected per frame, each
    frame's on top of its parent's, cached)."""

    def __init__(self, target: PathTarget) -> None:
        self.target = target
        self._by_node: dict[int, tuple[object, list[tuple[z3.ExprRef, z3.ExprRef]], int, int]] = {}
        self._folded = S.SignExtFolds()  # fold_sign_ext's, across reads

    def forget(self) -> None:
        self._by_node.clear()
        self._folded.clear()

    def of(self, node) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
        # From the deepest frame on the way up whose definitions were read with all its
        # constraints, and no frame with children gained one since (the target's epoch):
        # a run thousands of frames deep reads each frame once, not at every branch.
        epoch = self.target.epoch
        chain = []
        n = node
        defs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
        while n is not None:
            hit = self._by_node.get(id(n))
            if hit is not None and hit[0] is n and hit[2] == len(n.constraints) and hit[3] == epoch:
                defs = hit[1]
                break
            chain.append(n)
            n = n.parent
        chain.reverse()
        defs = list(defs)
        for m in chain:
            for c in m.constraints:
                if z3.is_eq(c):
                    lhs, rhs = c.arg(0), c.arg(1)
                    if not _ssa(lhs) and _ssa(rhs):  # a constant value comes first
                        lhs, rhs = rhs, lhs
                    if _ssa(lhs):
                        defs.append((lhs, substitute(rhs, defs) if defs else rhs))
            self._by_node[id(m)] = (m, list(defs), len(m.constraints), epoch)
        return defs

    def expand(self, t: z3.ExprRef, node) -> z3.ExprRef:
        defs = self.of(node)
        # fold first: simplifying a sign extension written as a concat splits x == c in two
        return simp(S.fold_sign_ext(substitute(t, defs) if defs else t, self._folded))


def _ssa(t: z3.ExprRef) -> bool:
    return z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED and "#" in t.decl().name()


def simp(t: z3.ExprRef) -> z3.ExprRef:
    """z3's simplifier, keeping sign extensions readable (no concat of extracts)."""
    return z3.simplify(t, elim_sign_ext=False)


def _stmt(point: PathPoint) -> Call:
    c = point.stack[-1]
    s = c.frame.proc.blocks[c.block].stmts[c.index]
    assert isinstance(s, Call)
    return s


def alive_registers(p: PathPoint, liveness: dict[str, dict[tuple[int, int], frozenset[str]]]
                    ) -> dict[int, frozenset[str]]:
    """The registers each activation of ``p`` may still read, by frame id (a dead one
    holds an old element, ever older: it would make every boundary new). ``liveness``:
    each procedure's ``live_locals``, filled in as needed."""
    alive: dict[int, frozenset[str]] = {}
    for depth, c in enumerate(p.stack):
        proc = c.frame.proc
        if proc.name not in liveness:
            liveness[proc.name] = live_locals(proc)
        names = liveness[proc.name].get((c.block, c.index), frozenset())
        if depth + 1 < len(p.stack):
            pending = p.stack[depth + 1].call
            if pending is not None and isinstance(pending.lhs, Reg):
                names = names - {pending.lhs.name}  # the call's result will overwrite it
        alive[c.frame.fid] = names
    return alive


def kept_object(p: PathPoint, sem: SymbolicSemantics) -> Callable[[int], bool]:
    """Whether a boundary at ``p`` keeps a memory object (a returned call's locals are
    dropped)."""
    live = {oid for c in p.stack for oid in c.frame.objects.values()}
    return lambda oid: sem.objects[oid].kind != "local" or oid in live


# At most this many values of a step's flags together split it, each at most this
# far from 0 (``flags``)
MAX_FLAG_CASES = 16
MAX_FLAG_VALUE = 255
FLAG_SOLVER_MS = 10_000  # a case undecided by then is kept (its condition is exact)


def flags(p: PathPoint, alive: dict[int, frozenset[str]], expand: Callable[[z3.ExprRef], z3.ExprRef],
          reads: Callable[[z3.ExprRef], bool], finite: FiniteValues,
          kept: Callable[[int], bool]) -> list[tuple[str, z3.ExprRef, list[int]]]:
    """The flags of ``p``'s state: live registers (a global's too) whose term reads
    the input (``reads``) and takes few values whatever the input (``FiniteValues``):
    ``st ^= (c == 7)`` keeps the parity of every 7 so far, a term reading the whole
    input, but it is 0 or 1. A big step ending at ``p`` is split by their values (a
    case split: the same paths, each with one more condition), so the next state holds
    a value, not the input's past, and the filter is in the class as its branching
    twin (``if (c == 7) st = !st;``) is. Only small values (``MAX_FLAG_VALUE``): a
    register splitting into ever new values (``h = h * 31 + (c == 'a')``) would make
    every state new. A memory object the state keeps (``kept``: an address-taken local,
    a struct, a global in memory) is a flag on the same terms, keyed ``mem:<object>``.
    Each: (key, its term, its values)."""
    out = []
    terms: list[tuple[str, z3.ExprRef]] = []
    for key, v in p.state.regs.items():
        if not key.startswith("@"):
            fid, _, name = key.partition(":")
            if name not in alive.get(int(fid), frozenset()):
                continue
        if not v.pts:  # (a pointer is left as it was: its objects, not its few values, matter)
            terms.append((key, v.term))
    terms += [(f"mem:{oid}", t) for oid, t in p.state.mem.items() if kept(oid)]
    for key, term in terms:
        if not z3.is_bv(term) or z3.is_bv_value(term):
            continue
        t = expand(term)
        if not reads(t):
            continue
        vals = finite.of(t)
        if vals is not None and len(vals) > 1 and all(abs(signed(x, t.size())) <= MAX_FLAG_VALUE for x in vals):
            out.append((key, t, sorted(vals)))
    return out


def flag_cases(found: list[tuple[str, z3.ExprRef, list[int]]], finite: FiniteValues
               ) -> list[tuple[tuple[z3.BoolRef, ...], dict[str, int]]] | None:
    """Every combination of the flags' values: its conditions (through the conditions
    the flags choose by: ``If(c, 1, 0) == 1`` is ``c``) and the values (None: more than
    ``MAX_FLAG_CASES``, the state then holds the terms)."""
    cases: list[tuple[tuple[z3.BoolRef, ...], dict[str, int]]] = [((), {})]
    for key, t, vals in found:
        cases = [(c + (S.fold_sign_ext(simp(finite.condition(t, v))),), {**f, key: v})
                 for c, f in cases for v in vals]
        if len(cases) > MAX_FLAG_CASES:
            return None
    return cases


def flag_comparison(c: z3.BoolRef, finite: FiniteValues) -> z3.BoolRef:
    """A branch condition comparing flags (``FiniteValues``) as the conditions they
    choose by (``3 + If(x == 'a', 1, 0) <= 3`` is ``x != 'a'``; true when their values
    decide it), as the concolic runs and the explored steps both write it; else ``c``."""
    r = finite.comparison(c)
    return c if r is None else S.drop_implied_bits(S.fold_sign_ext(r))


def _is_stream_op(s: object) -> bool:
    return isinstance(s, Call) and s.callee in STREAM_OPS


MAX_LOOKAHEAD = 64  # tl_peek(k) for k below this (the C harness holds that many elements)


def lookahead_of(program: Program) -> int:
    """The largest k of the program's ``tl_peek(k)`` calls with a constant k (0: none;
    a k that is not a constant is refused when the filter runs)."""
    return max((int(s.args[0].value) for p in program.procedures.values() for b in p.blocks for s in b.stmts
                if isinstance(s, Call) and s.callee == "tl_peek" and s.args and isinstance(s.args[0], Const)
                and isinstance(s.args[0].value, int) and 0 <= s.args[0].value < MAX_LOOKAHEAD), default=0)


def peek_offset(k: z3.ExprRef, loc: SourceLoc | None) -> int:
    """The k of ``tl_peek(k)``: a constant from 0 up (lookahead, reduced to lookback: the
    step that meets element i + k writes what the filter writes after reading it)."""
    if not z3.is_bv_value(k):
        raise FilterError(f"tl_peek(k): k depends on the input; it must be a constant from 0 to "
                          f"{MAX_LOOKAHEAD - 1}", loc)
    if not 0 <= k.as_signed_long() < MAX_LOOKAHEAD:
        raise FilterError(f"tl_peek({k.as_signed_long()}): the offset must be from 0 to {MAX_LOOKAHEAD - 1}", loc)
    return k.as_signed_long()


def element_type(bits: int) -> IntType:
    return IntType(bits, True)


# ---------------------------------------------------------------------- symbolic big steps


class LookbackExceeded(Exception):
    """A state at a step boundary holds an element older than the lookback window
    (``place`` back)."""

    def __init__(self, message: str, place: int = 0) -> None:
        super().__init__(message)
        self.place = place


class CounterMayWrap(Exception):
    """A counter taken as one value above its constants may wrap on a path of one big
    step (an increment near its type's modulus, a narrow type, a long inner loop): the
    merge cannot be shown exact, and learning starts again without counters."""

    def __init__(self, counter: Counter, why: str) -> None:
        super().__init__(f"the counter '{counter.display}' ({counter.loc}) {why}")
        self.counter = counter


@dataclass
class Boundary:
    """A place between two big steps: the filter stands before the stream operation
    that meets the next element. Its state is read back over the window ``w1..wk`` (the
    elements before; ``w0`` will be the next one) and nothing else, so two boundaries
    with the same ``key`` have the same futures (the filter is deterministic)."""

    point: PathPoint
    defined: int  # how many earlier elements exist (at most k)
    key: tuple
    reads: frozenset[int] = frozenset()  # the window places ``j`` the state holds (``wj``)
    # Elements met but not consumed (``tl_peek(k)`` looked ahead): ``w1..w<held>``, which
    # the filter will read again; 0 without lookahead
    held: int = 0


@dataclass
class SymStep:
    """One path of one big step from a boundary: ``kind`` "step" (the filter met the
    element ``w0``) or "end" (the input ended there); its condition and outputs are over
    ``w0..wk``. ``next`` is the boundary after a step (None if the filter returned)."""

    kind: str
    cond: z3.BoolRef
    outputs: tuple[z3.ExprRef, ...]
    next: Boundary | None = None
    guard: tuple[z3.BoolRef, ...] = ()  # ``cond``'s conjuncts in path order, as a concolic run writes them
    statements: int | None = None  # executed on the path (None: not known), each at most one increment


class StepExplorer:
    """Every path of a big step from a boundary, symbolically (Sigma*'s big-step
    transitions between input-reading states): the path strategy explores the
    filter's code with the next element ``w0`` symbolic; this class performs the
    stream operations, as ``FilterRunner`` does on a concrete input."""

    def __init__(self, program: Program, function: str, element: Element, lookback: int,
                 options: BigStepOptions | None = None, facts: TermFacts | None = None) -> None:
        if function not in program.procedures:
            raise TracelearnError(f"no definition of the filter function '{function}'")
        self.program = program
        self.element = element
        self.k = lookback
        self.opt = options or BigStepOptions()
        # the window places of the steps' terms (a learner shares its own with the walk and
        # the oracle)
        self.facts = facts if facts is not None else TermFacts()
        target = FilterTarget([element.window(j) for j in range(lookback + 1)], inline_rlimit=INLINE_RLIMIT)
        self.sem = SymbolicSemantics(program, SemanticsOptions(name_values=False), target)
        self.explorer = PathExplorer(self.sem, PathOptions(eager=True, max_statements=self.opt.max_statements,
                                                           library_bound=self.opt.library_bound, repeats_end=True))
        self.function = function
        self.defs = Definitions(self.sem.target)
        self.root: PathPoint | None = None
        self.paths = 0
        self._liveness: dict[str, dict[tuple[int, int], frozenset[str]]] = {}
        self._finite = FiniteValues(MAX_FLAG_CASES)  # the few values of flags (``flags``)
        # what was found already: boundaries with one key have the same steps (the
        # filter is deterministic; steps are over the window), whichever conjecture
        # state or window predicates the oracle meets them with, in whichever round
        self._initial: tuple[tuple[int, ...], Boundary | None] | None = None
        self._steps: dict[tuple, tuple[list[SymStep], int, int]] = {}  # key but the count -> steps, count, k
        # term id -> (term, its reading back if it names no path value, whether it does not)
        self._closed: dict[int, tuple[z3.ExprRef, z3.ExprRef | None, bool]] = {}
        self._read: dict[int, tuple[z3.BoolRef, z3.BoolRef]] = {}  # path condition id -> (it, read back)
        self._texts: dict[int, tuple[z3.ExprRef, str]] = {}  # term id -> (term, its text)
        # Counters (``ir.analysis.Counter``) above every constant they are compared with
        # are one value in a boundary's key: a filter counting its elements has finitely
        # many boundaries. Exact until a counter wraps: what ``exact_length`` bounds.
        self._counters: dict[str, dict[str, Counter]] = {}
        self.merged: dict[str, Counter] = {}  # "proc:name" -> a counter merged somewhere
        self._seen: dict[str, int] = {}  # "proc:name" -> the largest value at a boundary
        self._growth: dict[str, int] = {}  # "proc:name" -> the most it grew in one step
        self._longest: dict[str, int] = {}  # "proc:name" -> the most statements of a step from a merge
        self.deadline: float | None = None  # past it, exploring raises TimeoutError("time limit")

    # ------------------------------------------------------------------ entry

    def initial(self) -> tuple[tuple[int, ...], Boundary | None]:
        """The outputs before the first read (constants) and the first boundary (None:
        the filter returned without reading)."""
        if self._initial is None:
            self._initial = self._first()
        return self._initial

    def _first(self) -> tuple[tuple[int, ...], Boundary | None]:
        self.root = self.explorer.start(self.function)
        outs: list[z3.ExprRef] = []
        point = self.root
        while True:
            ends = [e for e in self.explorer.explore(point, _is_stream_op) if e.status != "infeasible"]
            self._no_surprise(ends)
            if len(ends) != 1:
                raise FilterError("the filter branches before it reads its input", self.sem.cur_loc)
            end = ends[0]
            if end.status == "exit":
                return tuple(_const(o) for o in outs), None
            assert end.point is not None
            call = _stmt(end.point)
            if call.callee != "tl_out":
                break
            outs.append(self._expand(self.explorer.call_args(end.point)[0].term, end.point))
            point = self.explorer.returned(end.point, None)
        return tuple(_const(o) for o in outs), self.boundary(end.point, 0)

    # ------------------------------------------------------------------ steps

    def steps(self, b: Boundary) -> list[SymStep]:
        """Every feasible path of the big step from ``b``: the input goes on (an element
        ``w0``) or ends there."""
        # The steps do not depend on how many earlier elements exist (the state names
        # only those it holds): a boundary known with another count takes its steps,
        # the next boundaries counted from this one (an escaper's first two boundaries
        # are one exploration, not two).
        known = self._steps.get(b.key[:-1])
        if known is not None:
            steps, d, k = known
            if d == b.defined and k == self.k:
                return steps
            nd = min(b.defined + 1, self.k)
            return [st if st.next is None else
                    replace(st, next=replace(st.next, defined=nd, key=st.next.key[:-1] + (nd,))) for st in steps]
        self.defs.forget()
        self._read.clear()  # (the names of the path's values are this exploration's)
        out: list[SymStep] = []
        base = b.point.node
        # the input ends here: a read stops the filter; tl_eof() says so and it goes on
        self._op(b.point, base, (), "end", b.held, b, out)
        # an element w0
        self._op(b.point, base, (), "step", b.held, b, out)
        self._measure_growth(b, out)
        self._steps[b.key[:-1]] = (out, b.defined, self.k)
        return out

    def widen(self, k: int) -> None:
        """The window widened to ``k`` places: the steps found stay (a step's condition
        does not depend on the width), the boundaries after them are counted anew."""
        if k > self.k:
            self.k = k
            self.sem.target.window = [self.element.window(j) for j in range(k + 1)]

    def ends_at_eof(self, b: Boundary) -> bool:
        """Whether the filter asks ``tl_eof()`` at ``b`` (then its end step is a final
        step; a read there stops it instead)."""
        return _stmt(b.point).callee == "tl_eof"

    def _op(self, p: PathPoint, base, outs: tuple, kind: str, rel: int, b: Boundary,
            out: list[SymStep]) -> None:
        """Every path of a big step of ``kind`` from the stream operation ``p`` stands
        before: ``rel`` is how far back from ``w0`` the filter's consumption stands (the
        element ``tl_in`` reads is ``w<rel>``; -1: past ``w0``). Depth first, on a stack
        rather than by recursion: a step may write thousands of outputs."""
        todo: list[tuple[str, object, tuple, int]] = [("op", p, outs, rel)]
        while todo:
            what, x, outs, rel = todo.pop()
            if what == "explore":  # the operations after a point, in the explorer's order
                ends = list(self.explorer.explore(x, _is_stream_op))
                todo.extend(("end", e, outs, rel) for e in reversed(ends))
                continue
            if what == "end":
                end = x
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    raise TimeoutError("time limit")  # a boundary's steps: up to seconds on a big filter
                self._no_surprise([end])
                if end.status == "infeasible":
                    continue
                self.paths += 1
                assert end.point is not None or end.status == "exit"
                if end.status == "exit":
                    out.append(self._step(kind, self._guard(end.point, base), outs,
                                          statements=end.point.statements if end.point is not None else None))
                    continue
                x = end.point
            nxt = self._one_op(x, base, outs, kind, rel, b, out)
            if nxt is not None:
                todo.append(("explore", *nxt))

    def _one_op(self, p: PathPoint, base, outs: tuple, kind: str, rel: int, b: Boundary,
                out: list[SymStep]) -> tuple[PathPoint, tuple, int] | None:
        """One stream operation: the point after it with the outputs and ``rel`` then (to
        explore on), or None when it ends the step (appended to ``out``). An operation
        needing an element after ``w0`` ends the step (at the end of the input, a read
        stops the filter and ``tl_eof()`` is 1)."""
        call = _stmt(p)
        name = call.callee
        if name == "tl_out":
            if self.opt.max_outputs is not None and len(outs) >= self.opt.max_outputs:
                raise FilterError(f"a big step writes more than {self.opt.max_outputs:,} elements", call.loc)
            t = self._expand(self.explorer.call_args(p)[0].term, p)
            return self.explorer.returned(p, None), outs + (t,), rel
        j = rel - (peek_offset(self._expand(self.explorer.call_args(p)[0].term, p), call.loc)
                   if name == "tl_peek" else 0)  # the window place the operation needs
        if kind == "end" and j <= 0:  # the place of the element that never came
            if name == "tl_eof":
                return self.explorer.returned(p, SVal(z3.BitVecVal(1, OUT_BITS))), outs, rel
            out.append(self._step(kind, self._guard(p, base), outs, statements=p.statements))
            return None
        if j < 0:  # the filter meets the next element: the step ends here
            guard = self._guard(p, base)
            for extra, fixed in self._cases(p, guard):
                out.append(self._step(kind, guard + extra, outs,
                                      self.boundary(p, min(b.defined + 1, self.k), rel + 1, fixed), p.statements))
            return None
        if name == "tl_eof":
            value = z3.BitVecVal(0, OUT_BITS)
        else:
            value = z3.SignExt(OUT_BITS - self.element.bits, self.element.window(j))
        return self.explorer.returned(p, SVal(value)), outs, rel - (name == "tl_in")

    # ------------------------------------------------------------------ boundaries

    def boundary(self, p: PathPoint, defined: int, held: int = 0, fixed: dict[str, int] | None = None) -> Boundary:
        """``p`` read back over the inputs, the window shifted by one (the element met
        becomes ``w1``), dead frames dropped; its point starts from the root frame.
        ``held``: the elements met and not consumed (``Boundary.held``); ``fixed``: the
        registers (keys of ``State.regs``) given a value instead (``_cases``)."""
        fixed = fixed or {}
        el = self.element
        st = p.state.copy()
        live = {c.frame.fid: depth for depth, c in enumerate(p.stack)}
        live_objects = {oid for c in p.stack for oid in c.frame.objects.values()}
        shift = [(el.window(j), el.window(j + 1)) for j in range(self.k + 1)]

        def reread(t: z3.ExprRef) -> z3.ExprRef:
            # A term that names no value of the path (no SSA name: a global's initial
            # contents, a string literal, a window term kept as it was) reads back the
            # same at every boundary: once per explorer, not per boundary and object.
            hit = self._closed.get(t.get_id())
            if hit is not None and not hit[0].eq(t):
                hit = None
            if hit is not None and hit[1] is not None:
                return hit[1]
            closed = hit[2] if hit is not None else not any("#" in n for n in term_names(t))
            r = substitute(self._expand(t, p), shift)
            far = max(window_vars(r), default=0)
            if far > self.k:
                raise LookbackExceeded(f"the state holds the element {far} back", far)
            r = simp(r)
            self._closed[t.get_id()] = (t, r if closed else None, closed)  # t kept: its id is not reused
            return r

        alive = alive_registers(p, self._liveness)
        regs: dict[str, SVal] = {}
        key_regs = []
        for key, v in st.regs.items():
            fid, _, name = key.partition(":") if not key.startswith("@") else ("@", "", key)
            if fid != "@" and (int(fid) not in live or name not in alive[int(fid)]):
                continue
            if key in fixed:  # one of the few values of a flag (``_cases``)
                v = SVal(z3.BitVecVal(fixed[key], v.term.size()), v.pts)
            term = reread(v.term)
            regs[key] = SVal(term, v.pts)
            text = self._counted(p.stack[live[int(fid)]].frame.proc, name, term) if fid != "@" else None
            key_regs.append((name if fid == "@" else f"{live[int(fid)]}:{name}", text or self._text(term)))
        mem = {}
        key_mem = []
        for oid, contents in st.mem.items():
            if self.sem.objects[oid].kind == "local" and oid not in live_objects:
                continue  # a returned call's locals
            if f"mem:{oid}" in fixed:  # one of the few values of a flag (``_cases``)
                contents = z3.BitVecVal(fixed[f"mem:{oid}"], contents.size())
            term = reread(contents)
            mem[oid] = term
            key_mem.append((oid, self._text(term)))
        st.regs, st.mem = regs, mem
        # a new step: the loop counts and the states seen at back edges are this step's
        # (the element is always ``w0``: a loop that read it in the last step would look
        # as if it came back to the same state, an input-free loop, with int32 elements)
        stack = [replace(c, loops={}, seen={}) for c in p.stack]
        cursors = tuple((c.frame.proc.name, c.block, c.index) for c in stack)
        assert self.root is not None
        point = PathPoint(st, stack, self.root.node, (), (), 0, p.allocs, p.user_site, stopped=True)
        key = (cursors, tuple(sorted(key_regs)), tuple(sorted(key_mem)), held, defined)
        reads = frozenset(int(m) for _, text in key_regs + key_mem for m in re.findall(r"\bw(\d+)\b", text))
        return Boundary(point, defined, key, reads | frozenset(range(1, held + 1)), held)

    def _cases(self, p: PathPoint, guard: tuple[z3.BoolRef, ...]
               ) -> list[tuple[tuple[z3.BoolRef, ...], dict[str, int]]]:
        """The feasible cases of the flags of ``p``'s state (``flags``): each case's
        conditions (over the window before the shift) and the flags' values; one case
        without conditions when there are none."""
        found = flags(p, alive_registers(p, self._liveness), lambda t: self._expand(t, p),
                      lambda t: bool(self.facts.places(t)), self._finite, kept_object(p, self.sem))
        cases = flag_cases(found, self._finite) if found else None
        if cases is None:
            return [((), {})]
        s = z3.Solver()
        s.set("timeout", FLAG_SOLVER_MS)
        s.add(*guard)
        # (an undecided case is kept: its condition is still exact, the walk and the
        # oracle never take a step no input satisfies)
        feasible = [(c, f) for c, f in cases if s.check(*c) != z3.unsat]
        if len(feasible) == 1:  # the path decided the flags: their conditions say nothing more
            return [((), feasible[0][1])]
        return feasible

    # ------------------------------------------------------------------ counters

    def _counted(self, proc, name: str, term: z3.ExprRef) -> str | None:
        """The key text of a counter's value beyond every constant it is compared with
        (above them, or below for a decreasing one: one for all such values), else
        None; records what ``exact_length`` needs."""
        c = self._counter_map(proc).get(name) if self.opt.counters else None
        if c is None or not z3.is_bv_value(term):
            return None
        if not c.compared:
            return "(counter never compared)"  # its value, wrapped or not, decides nothing
        v = c.progress(term.as_signed_long() if c.signed else term.as_long())
        at = f"{proc.name}:{name}"
        self._seen[at] = max(v, self._seen.get(at, v))
        if v <= c.above:
            return None
        self.merged[at] = c
        return f"(counter {c.beyond})"

    def _counter_map(self, proc) -> dict[str, Counter]:
        if proc.name not in self._counters:
            self._counters[proc.name] = counters(proc)
        return self._counters[proc.name]

    def _measure_growth(self, b: Boundary, steps: list[SymStep]) -> None:
        """How much each counter of ``b``'s frames above its constants grows in one step,
        and how many statements a step from there makes (the steps of a merged boundary
        are its representative's: the same paths for every value above the constants,
        the same increments, so long as none wraps). Each statement adds at most the
        counter's largest increment: a path on which the representative could pass its
        type's maximum is not shown exact (``CounterMayWrap``); on the others no value
        wrapped, so the difference of the values at the two boundaries is the growth (a
        negative one: a reset to a constant)."""
        frames = {f"{c.frame.fid}:": c.frame.proc for c in b.point.stack}
        for key, v in b.point.state.regs.items():
            fid, _, name = key.partition(":")
            proc = frames.get(f"{fid}:")
            if proc is None or not self.opt.counters or name not in self._counter_map(proc) \
                    or not z3.is_bv_value(v.term):
                continue
            c = self._counter_map(proc)[name]
            before = c.progress(v.term.as_signed_long() if c.signed else v.term.as_long())
            if before <= c.above or not c.compared:
                continue  # a value the keys keep apart (or that decides nothing): no growth to bound
            at = f"{proc.name}:{name}"
            for st in steps:
                if st.statements is None:
                    raise CounterMayWrap(c, f"is one value {c.beyond}, and a path of a step from "
                                            "there makes a number of statements not known")
                if before + st.statements * c.step > c.maximum:
                    raise CounterMayWrap(c, f"may pass {c.wraps_past:,} and wrap inside one step: "
                                            f"{c.progress(before):,} plus {st.statements} statements of up to "
                                            f"{c.change} each")
                self._longest[at] = max(st.statements, self._longest.get(at, 0))
                after = st.next.point.state.regs.get(key) if st.next is not None else None
                if after is not None and z3.is_bv_value(after.term):
                    grew = c.progress(after.term.as_signed_long() if c.signed else after.term.as_long()) - before
                    self._growth[at] = max(grew, self._growth.get(at, 0))

    def exact_length(self) -> tuple[int, Counter] | None:
        """Where boundaries were merged over a counter: the length of input up to which
        every run keeps it at most its type's maximum (so the merge is exact), with the
        counter; None when no run can make it wrap. A run enters the merged values at a
        value of a boundary explored (at most the largest seen); each step from there adds
        at most the largest growth measured, and inside a step the value goes at most the
        step's statements times the largest increment above the boundary's.
        ``CounterMayWrap`` when not even the values seen are safe."""
        best: tuple[int, Counter] | None = None
        for at, c in self.merged.items():
            grew = self._growth.get(at, 0)
            slack = c.maximum - max(c.start, self._seen.get(at, c.start)) - self._longest.get(at, 0) * c.step
            if slack < 0:
                raise CounterMayWrap(c, f"may pass {c.wraps_past:,} and wrap inside one step from a value seen")
            if grew <= 0:
                continue  # it never grows above what was seen: it never wraps
            n = slack // grew
            if n < 1:  # a bound of no input: the depth-bounded search says more
                raise CounterMayWrap(c, f"may pass {c.wraps_past:,} within a step of the values seen")
            if best is None or n < best[0]:
                best = (n, c)
        return best

    # ------------------------------------------------------------------ helpers

    def _text(self, t: z3.ExprRef) -> str:
        """``t.sexpr()``, once per term (a string literal's contents recur at every boundary)."""
        hit = self._texts.get(t.get_id())
        if hit is None or not hit[0].eq(t):
            hit = (t, t.sexpr())  # t kept: its id is not reused
            self._texts[t.get_id()] = hit
        return hit[1]

    def _expand(self, t: z3.ExprRef, p: PathPoint) -> z3.ExprRef:
        return S.fold_sign_ext(self.defs.expand(t, p.node))

    def _guard(self, p: PathPoint | None, base) -> tuple[z3.BoolRef, ...]:
        """The path's conditions below ``base`` in path order, over the window, each
        read back as a concolic run reads its branch conditions (true ones dropped)."""
        node = p.node if p is not None else self.sem.target.node
        frames = []
        n = node
        while n is not None and n is not base:
            frames.append(n.constraints)
            n = n.parent
        out = []
        for cs in reversed(frames):
            for c in cs:
                # paths of one step share their first conditions: each read once (its
                # names are defined above it, the same on every path through it)
                hit = self._read.get(c.get_id())
                if hit is None or not hit[0].eq(c):
                    read = S.drop_implied_bits(S.fold_sign_ext(self.defs.expand(c, node)))
                    hit = (c, flag_comparison(read, self._finite))
                    self._read[c.get_id()] = hit
                if not z3.is_true(hit[1]):
                    out.append(hit[1])
        return tuple(out)

    def _step(self, kind: str, guard: tuple[z3.BoolRef, ...], outs: tuple, nxt: Boundary | None = None,
              statements: int | None = None) -> SymStep:
        # an element read ahead (``Boundary.held``) and read again when consumed may lie
        # past the window
        far = max((j for t in guard + tuple(outs) for j in self.facts.places(t)), default=0)
        if far > self.k:
            raise LookbackExceeded(f"a step reads the element {far} back", far)
        return SymStep(kind, all_of(list(guard)), outs, nxt, guard, statements)

    def _no_surprise(self, ends: list[PathEnd]) -> None:
        for e in ends:
            if e.status == "limit":
                raise FilterError(_endless(e, self.opt.max_statements), self.sem.cur_loc)
            if e.status == "unknown":
                raise TimeoutError(f"the solver could not decide a path: {e.reason}")


def not_input(what: str, t: z3.ExprRef) -> str:
    """Why ``what`` (a branch, an output) over ``t`` is outside the class."""
    text = " ".join(str(t).split())  # (one line: a term can be a page of nested If)
    text = text if len(text) <= 160 else text[:157] + "..."
    if any(n.startswith("invalid.read") for n in term_names(t)):  # (the semantics' value of a bad read)
        return f"{what} depends on a read of invalid memory (out of bounds, or a null or dangling pointer): {text}"
    return f"{what} depends on something other than the input: {text}"


def _endless(end: PathEnd, max_statements: int) -> str:
    # the error names the loop's place: the path's reason (which names it too) is not repeated
    what = ("a loop comes back to the same state without reading the input: it never ends"
            if end.repeated else
            f"the filter ran {max_statements} statements without reading its input")
    return f"{what} (an input-free infinite loop is outside the class)"


def _const(t: z3.ExprRef) -> int:
    if not z3.is_bv_value(t):
        raise FilterError(f"an output before the first read is not a constant: {t}", None)
    return t.as_signed_long()

