"""Sigma*'s predicate abstraction of a filter (Sec. 5, "synthesis"): the big steps of
``StepExplorer`` explored from *abstract* boundaries.

An abstract boundary keeps what the filter writes exact and abstracts what only
steers it. The data registers (``ir.analysis.data_registers``: their values may reach
an output, a store or a call) keep their terms over the window, as the concrete
boundaries do, and so does a register holding one element of the window (a peeked
element the next step compares). Every other integer register of the filter (a state
flag, a counter) is a fresh symbol ``ctl!<depth>:<name>``, known only through which
predicates of ``Phi`` hold of it: the boundary's *minterm*. A big step explored from there has a condition
over the window and those symbols; the abstract steps are its paths that some value
of the minterm allows, one per minterm the registers' new values may satisfy after it.
Their guards keep the conditions over the window alone (a path whose condition reads a
symbol beside a window term of few values is first split by that term's values; a
condition that still reads both is dropped: a weaker guard, still an over-approximation). So
every run of the filter is a run of the abstraction writing the same outputs, and an
abstraction that agrees with a conjecture proves it.

A spurious run of the abstraction refines ``Phi``: the weakest precondition of its
steps' conditions, taken back through each step's assignments to the symbols; its
atoms over the symbols alone are the new predicates (Sigma*'s predicate selection).

Counters (``ir.analysis.counters``) are taken not to wrap: a step that would carry
one past its maximum is left out. ``bound()`` says for how many elements that holds,
as the concrete oracle's merged counters do.
"""

from __future__ import annotations

import ctypes
import re
import time
from dataclasses import dataclass, field, replace

import z3

from ...errors import UnsupportedError
from ...querytime import remaining_ms
from ...ir.analysis import Counter, counters, data_registers
from ...z3dag import all_of, conjuncts, names as term_names
from ...bvterm import FiniteValues
from .bigstep import MAX_FLAG_CASES, Boundary, FilterError, StepExplorer, SymStep

CTL = "ctl!"


class AbstractionUnsupported(UnsupportedError):
    """The filter keeps something the abstraction cannot (a written value that depends
    on an abstracted register, an abstracted register with no constant start)."""


@dataclass
class AbstractBoundary(Boundary):
    """A boundary of the abstraction: ``point`` holds the control registers as symbols;
    ``minterm`` says which predicates hold of them."""

    minterm: tuple[bool, ...] = ()
    inner: Boundary | None = None  # the boundary the step explorer explores (symbols in it)


@dataclass
class AbstractStep(SymStep):
    """An abstract step, with what the refinement needs: the path's whole condition
    (over the window and the symbols) and the symbols' new values (over the window of
    the next boundary, ``w0`` having become ``w1``)."""

    full: z3.BoolRef | None = None
    post: dict[str, z3.ExprRef] = field(default_factory=dict)
    src: AbstractBoundary | None = None


def predicate_text(p: z3.ExprRef) -> str:
    """A predicate as text, each symbol by its register's name (``@<depth>`` for a
    callee's)."""
    text = " ".join(str(p).split())  # (z3 breaks long terms over lines)
    return re.sub(r"ctl!(\d+):([\w.$]+)", lambda m: m.group(2) + ("" if m.group(1) == "0" else f"@{m.group(1)}"),
                  text)


def holds_element(t: z3.ExprRef) -> bool:
    """Is ``t`` one element of the window (``w<j>``), extended or cut?"""
    while z3.is_app_of(t, z3.Z3_OP_SIGN_EXT) or z3.is_app_of(t, z3.Z3_OP_ZERO_EXT) or \
            z3.is_app_of(t, z3.Z3_OP_EXTRACT):
        t = t.arg(0)
    return z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED \
        and re.fullmatch(r"w\d+", t.decl().name()) is not None


def is_control(t: z3.ExprRef) -> bool:
    return any(n.startswith(CTL) for n in term_names(t))


def atoms(f: z3.BoolRef) -> list[z3.BoolRef]:
    """The atomic formulas of ``f`` (through and, or, not, implies, if-then-else of
    formulas)."""
    out, todo, seen = [], [f], set()
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_and(t) or z3.is_or(t) or z3.is_not(t) or z3.is_implies(t) or \
                (z3.is_app_of(t, z3.Z3_OP_ITE) and z3.is_bool(t.arg(1))) or \
                (z3.is_eq(t) and z3.is_bool(t.arg(0))):
            todo.extend(t.children())
        elif not (z3.is_true(t) or z3.is_false(t)):
            out.append(t)
    return out


class AbstractExplorer:
    """The predicate abstraction of one filter, over ``inner``'s big steps (the
    ``StepExplorer`` interface the equivalence oracle searches: ``initial``, ``steps``,
    ``element``, ``k``)."""

    def __init__(self, inner: StepExplorer, no_wrap: bool = True) -> None:
        self.inner = inner
        self.no_wrap = no_wrap  # counters taken not to wrap (``bound``); off: every wrap kept
        self.element = inner.element
        self.facts = inner.facts
        self.predicates: list[z3.BoolRef] = []  # Phi, over the symbols
        self.solver_calls = 0
        self._texts: set[str] = set()
        self._steps: dict[tuple, list[AbstractStep]] = {}
        self._data: dict[str, frozenset[str]] = {}
        self._counters: dict[str, dict[str, Counter]] = {}
        self._initial: tuple[tuple[int, ...], AbstractBoundary | None] | None = None
        self._start: dict[str, int] = {}  # symbol -> its value at the first boundary
        self._proc_of: dict[str, str] = {}  # symbol -> the procedure of its register
        # no-wrap bookkeeping: counter symbol -> (the counter, the most it grows in a step),
        # and the counters whose assumption left a path out (the bound is theirs)
        self.grows: dict[str, tuple[Counter, int]] = {}
        self.cut: set[str] = set()
        self.deadline: float | None = None
        self._finite = FiniteValues(MAX_FLAG_CASES)  # window terms of few values (``_split``)

    @property
    def k(self) -> int:
        return self.inner.k

    def widen(self, k: int) -> None:
        """The window widened (the inner explorer keeps its steps; the abstract ones,
        whose boundaries count the places anew, are found again)."""
        if k > self.inner.k:
            self.inner.widen(k)
            self._steps.clear()
            self._initial = None

    # ------------------------------------------------------------------ entry

    def initial(self) -> tuple[tuple[int, ...], AbstractBoundary | None]:
        if self._initial is None:
            outs, b0 = self.inner.initial()
            if b0 is None:
                self._initial = (outs, None)
            else:
                regs, values = self._abstracted(b0)
                for s, v in values.items():
                    if not z3.is_bv_value(v):
                        raise AbstractionUnsupported(f"the register {s[len(CTL):]} has no constant value at the "
                                                     "first read")
                    self._start[s] = v.as_signed_long() if self._signed(s) else v.as_long()
                self._initial = (outs, self._make(b0, regs, self._minterm_of(values)))
        return self._initial

    def refine(self, predicates: list[z3.BoolRef]) -> list[z3.BoolRef]:
        """Add the predicates not in Phi yet (returned); the abstraction starts again."""
        new = []
        for p in predicates:
            p = z3.simplify(p)
            if z3.is_true(p) or z3.is_false(p) or not is_control(p) or p.sexpr() in self._texts:
                continue
            self._texts.add(p.sexpr())
            self.predicates.append(p)
            new.append(p)
        if new:
            self._steps.clear()
            self._initial = None
            self.grows.clear()
            self.cut.clear()
        return new

    # ------------------------------------------------------------------ steps

    def steps(self, b: AbstractBoundary) -> list[AbstractStep]:
        known = self._steps.get(b.key[:-1])
        if known is not None:
            return [st if st.next is None or st.next.defined == min(b.defined + 1, self.k) else
                    replace(st, next=self._defined(st.next, min(b.defined + 1, self.k)), src=b) for st in known]
        assert b.inner is not None
        inner = replace(b.inner, defined=b.defined, key=b.inner.key[:-1] + (b.defined,))
        m = self._formula(b.minterm)
        out: list[AbstractStep] = []
        try:
            found = self.inner.steps(inner)
        except (RecursionError, ctypes.ArgumentError) as e:
            # (a loop within the step whose trip count an abstracted register decides; z3's
            # bindings report the recursion limit met inside a call as an ArgumentError)
            if isinstance(e, ctypes.ArgumentError) and "RecursionError" not in str(e):
                raise
            raise AbstractionUnsupported("a step from an abstract state does not end: a loop in it runs as often as "
                                         "an abstracted register says") from None
        except FilterError as e:  # from an abstract state: not a fact about the filter's runs
            raise AbstractionUnsupported(f"a step from an abstract state does not end within the bounds ({e}): "
                                         "a loop in it may run as often as an abstracted register says") from None
        for st in found:
            out.extend(self._abstract(b, m, st))
        self._steps[b.key[:-1]] = out
        return out

    def _abstract(self, b: AbstractBoundary, m: z3.BoolRef, st: SymStep) -> list[AbstractStep]:
        """The abstract steps of one path: none if no value of the minterm takes it; else
        one per minterm the symbols' new values can satisfy (for each case of
        ``_split``)."""
        for o in st.outputs:
            if is_control(o):
                raise AbstractionUnsupported(f"an output depends on an abstracted register ({o})")
        regs, post = self._abstracted(st.next) if st.next is not None else ({}, {})
        out = []
        for full, post in self._split(st.cond, post):
            guard = tuple(c for c in conjuncts(full) if not is_control(c))
            cond = all_of(list(guard))
            if st.next is None:
                if self._sat([m, full]):
                    out.append(AbstractStep(st.kind, cond, st.outputs, None, guard, st.statements, full, {}, b))
                continue
            shift = [(self.element.window(j), self.element.window(j + 1)) for j in range(self.k + 1)]
            moved = z3.substitute(full, *shift)
            nowrap = self._no_wrap(post)
            for sym, c in nowrap.items():
                # the bound is needed only where the assumption leaves a path out
                if sym not in self.cut and self._sat([m, moved, z3.Not(c)]):
                    self.cut.add(sym)
            for mt in self._successors([m, moved, *nowrap.values()], post):
                nxt = self._make(st.next, regs, mt)
                out.append(AbstractStep(st.kind, cond, st.outputs, nxt, guard, st.statements, full, post, b))
        return out

    def _split(self, cond: z3.BoolRef, post: dict[str, z3.ExprRef]
               ) -> list[tuple[z3.BoolRef, dict[str, z3.ExprRef]]]:
        """The path's condition and the symbols' new values, split by the values of the
        window terms of few values that meet a symbol in them (``ctl ^ If(w0 == 7, 1,
        0) != 0``: the term is 0 or 1): each case has the window's condition for its
        values and those values put in, so a condition that read both a symbol and the
        window reads one or the other (a guard kept, a predicate the refinement can
        find), as the branching twin ``if (c == 7) st = !st;`` gives. One case, the path
        itself, where there are none (or too many)."""
        el = self.element
        mixed = [c for c in conjuncts(cond) if _mixed(c)]
        late = [v for v in post.values() if _mixed(v)]
        if not mixed and not late:
            return [(cond, post)]
        unshift = [(el.window(j + 1), el.window(j)) for j in range(self.k + 1)]
        mixed += [z3.substitute(v, *unshift) for v in late]
        found: dict[int, tuple[z3.ExprRef, frozenset[int]]] = {}
        seen: set[int] = set()
        todo = list(mixed)
        while todo:
            t = todo.pop()
            if t.get_id() in seen:
                continue
            seen.add(t.get_id())
            if is_control(t):
                todo.extend(t.children())
            elif z3.is_bv(t) and _reads_window(t):
                vals = self._finite.of(t)
                if vals is not None and len(vals) > 1:
                    found[t.get_id()] = (t, vals)
        cases: list[list[tuple[z3.ExprRef, int]]] = [[]]
        for t, vals in found.values():
            cases = [c + [(t, v)] for c in cases for v in sorted(vals)]
            if len(cases) > MAX_FLAG_CASES:
                return [(cond, post)]
        if not found:
            return [(cond, post)]
        shift = [(el.window(j), el.window(j + 1)) for j in range(self.k + 1)]
        out = []
        for case in cases:
            pairs = [(t, z3.BitVecVal(v, t.size())) for t, v in case]
            moved = [(z3.substitute(t, *shift), u) for t, u in pairs]
            full = z3.simplify(z3.And(z3.substitute(cond, *pairs), *[self._finite.condition(t, v) for t, v in case]))
            if z3.is_false(full):
                continue
            out.append((full, {k: z3.simplify(z3.substitute(v, *moved)) for k, v in post.items()}))
        return out

    def _successors(self, facts: list[z3.BoolRef], post: dict[str, z3.ExprRef]) -> list[tuple[bool, ...]]:
        """The minterms the new values satisfy on some path (one solver, each found
        blocked)."""
        s = self._solver()
        s.add(*facts)
        pairs = [(z3.Const(n, v.sort()), v) for n, v in post.items()]
        flags = [z3.Bool(f"phi!{i}") for i in range(len(self.predicates))]
        for f, p in zip(flags, self.predicates):
            s.add(f == (z3.substitute(p, *pairs) if pairs else p))
        found = []
        while True:
            self.solver_calls += 1
            r = s.check()
            if r == z3.unknown:
                raise TimeoutError("time limit" if self.deadline is not None and time.perf_counter() > self.deadline else "the solver gave up on an abstract step")
            if r != z3.sat:
                return found
            model = s.model()
            mt = tuple(z3.is_true(model.eval(f, model_completion=True)) for f in flags)
            found.append(mt)
            if not flags:
                return found
            s.add(z3.Or(*[f != z3.BoolVal(v) for f, v in zip(flags, mt)]))

    def _solver(self) -> z3.Solver:
        s = z3.Solver()
        if self.deadline is not None:
            s.set("timeout", remaining_ms(self.deadline))
        return s

    def _sat(self, facts: list[z3.BoolRef]) -> bool:
        s = self._solver()
        s.add(*facts)
        self.solver_calls += 1
        r = s.check()
        if r == z3.unknown:
            raise TimeoutError("time limit" if self.deadline is not None and time.perf_counter() > self.deadline else "the solver gave up on an abstract step")
        return r == z3.sat

    # ------------------------------------------------------------------ boundaries

    def _abstracted(self, b: Boundary) -> tuple[dict[str, z3.ExprRef], dict[str, z3.ExprRef]]:
        """The boundary's registers with the control ones as symbols, and the values the
        symbols stand for there (by symbol name)."""
        p = b.point
        depth_of = {c.frame.fid: d for d, c in enumerate(p.stack)}
        regs: dict[str, z3.ExprRef] = {}
        values: dict[str, z3.ExprRef] = {}
        for key, v in p.state.regs.items():
            fid, _, name = key.partition(":")
            if key.startswith("@") or v.pts or not z3.is_bv(v.term):
                continue
            d = depth_of.get(int(fid))
            if d is None:
                continue
            proc = p.stack[d].frame.proc
            if name in self._data_of(proc):
                if is_control(v.term):
                    raise AbstractionUnsupported(f"'{name}' of {proc.name}, which the filter writes, depends on a "
                                                 "register the abstraction drops")
                continue
            if holds_element(v.term):
                # an element held (a peeked one compared with the next): kept as the window
                # place it is, as a data register is; a symbol would forget that it is that
                # element, and no predicate over symbols alone could say so again
                continue
            sym = f"{CTL}{d}:{name}"
            self._proc_of[sym] = proc.name
            regs[key] = z3.BitVec(sym, v.term.size())
            values[sym] = v.term
        # What is kept must not name a symbol: at the next boundary the symbol stands for
        # the register's new value, and a global holding the old one would be taken for
        # it (the data registers take in what flows to a global; this is the net).
        kept = [v.term for key, v in p.state.regs.items() if key not in regs] + list(p.state.mem.values())
        for t in kept:
            if is_control(t):
                raise AbstractionUnsupported("the filter keeps the value of an abstracted register elsewhere "
                                             f"({_short(t)})")
        return regs, values

    def _make(self, b: Boundary, regs: dict[str, z3.ExprRef], minterm: tuple[bool, ...]) -> AbstractBoundary:
        st = b.point.state.copy()
        st.regs = {key: (replace(v, term=regs[key]) if key in regs else v) for key, v in st.regs.items()}
        point = replace(b.point, state=st)
        depth_of = {c.frame.fid: d for d, c in enumerate(point.stack)}

        def name(key: str) -> str:  # a local by its frame's depth, as the step explorer's keys
            if key.startswith("@"):
                return key
            fid, _, reg = key.partition(":")
            return f"{depth_of.get(int(fid))}:{reg}"

        texts = tuple(sorted((name(k), self.inner._text(v.term)) for k, v in st.regs.items()))
        cursors, _, mem, held, defined = b.key
        inner_key = (cursors, texts, mem, held, defined)
        terms = [v.term for v in st.regs.values()] + list(st.mem.values())
        reads = frozenset(j for t in terms for j in self.facts.places(t)) | frozenset(range(1, held + 1))
        inner = Boundary(point, defined, inner_key, reads, held)
        return AbstractBoundary(point, defined, (inner_key[:-1], minterm, defined), reads, held, minterm, inner)

    def _defined(self, b: AbstractBoundary, d: int) -> AbstractBoundary:
        return replace(b, defined=d, key=b.key[:-1] + (d,))

    def _minterm_of(self, values: dict[str, z3.ExprRef]) -> tuple[bool, ...]:
        pairs = [(z3.BitVec(n, v.size()), v) for n, v in values.items()]
        out = []
        for p in self.predicates:
            v = z3.simplify(z3.substitute(p, *pairs) if pairs else p)
            if not (z3.is_true(v) or z3.is_false(v)):
                raise AbstractionUnsupported(f"the predicate {p} is not decided at the first read")
            out.append(z3.is_true(v))
        return tuple(out)

    def _formula(self, minterm: tuple[bool, ...]) -> z3.BoolRef:
        return all_of([p if v else z3.Not(p) for p, v in zip(self.predicates, minterm)])

    # ------------------------------------------------------------------ counters

    def _data_of(self, proc) -> frozenset[str]:
        if proc.name not in self._data:
            self._data[proc.name] = data_registers(proc)
            self._counters[proc.name] = counters(proc) if self.no_wrap else {}
        return self._data[proc.name]

    def _counter(self, sym: str) -> Counter | None:
        proc = self._proc_of.get(sym)
        c = self._counters.get(proc, {}).get(sym[len(CTL):].partition(":")[2]) if proc is not None else None
        return c if c is not None and c.step > 0 else None

    def _signed(self, sym: str) -> bool:
        c = self._counter(sym)
        return c.signed if c is not None else True

    def _no_wrap(self, post: dict[str, z3.ExprRef]) -> dict[str, z3.BoolRef]:
        """For each counter increased by a constant in the step: it does not pass its
        maximum (the growth recorded for ``bound``). A counter no branch reads is left
        alone: no predicate can be over it, so its wrapping changes nothing."""
        out = {}
        for sym, v in post.items():
            c = self._counter(sym)
            if c is None or not c.compared:
                continue
            x = z3.BitVec(sym, v.size())
            grow = z3.simplify(v - x)
            if z3.is_bv_value(grow):
                # (an unsigned decrease by 1 is +0xFFFFFFFF: read as signed)
                g = c.progress(grow.as_signed_long() if c.signed or c.sign < 0 else grow.as_long())
                if g <= 0:
                    continue
                if c.sign > 0:
                    limit = z3.BitVecVal(c.maximum - g, v.size())
                    out[sym] = x <= limit if c.signed else z3.ULE(x, limit)
                else:  # -x <= maximum - g
                    limit = z3.BitVecVal(g - c.maximum, v.size())
                    out[sym] = x >= limit if c.signed else z3.UGE(x, limit)
            elif z3.is_bv_value(z3.simplify(v)):
                g = max(0, c.progress(z3.simplify(v).as_signed_long()) - c.start)
            else:
                continue
            _, before = self.grows.get(sym, (c, 0))
            self.grows[sym] = (c, max(before, g))
        return out

    def grows_of(self, c: Counter) -> int:
        return max((g for x, g in self.grows.values() if x is c), default=0)

    def bound(self) -> tuple[int, Counter] | None:
        """Inputs of at most this many elements never carry a counter past its maximum
        (the steps left out are never taken on them); None: the assumption left no step out."""
        best: tuple[int, Counter] | None = None
        for sym, (c, g) in self.grows.items():
            if g <= 0 or sym not in self.cut:
                continue
            base = max(c.start, c.progress(self._start[sym]) if sym in self._start else c.start)
            n = (c.maximum - base) // g
            if best is None or n < best[0]:
                best = (n, c)
        return best


def _short(t: z3.ExprRef) -> str:
    text = predicate_text(t)
    return text if len(text) <= 80 else text[:77] + "..."


def weakest_precondition_atoms(path: list[AbstractStep]) -> list[z3.BoolRef]:
    """Sigma*'s predicate selection: the weakest precondition of the path's conditions,
    taken back step by step through the symbols' assignments; the atoms over the
    symbols alone, at every step of the way."""
    found: dict[str, z3.BoolRef] = {}
    carried: list[z3.BoolRef] = []  # atoms over the symbols after the current step
    for st in reversed(path):
        assert st.full is not None
        pairs = [(z3.BitVec(n, v.size()), v) for n, v in st.post.items()]
        back = [z3.simplify(z3.substitute(a, *pairs)) if pairs else a for a in carried]
        here = [z3.simplify(a) for a in atoms(st.full)]
        carried = []
        for a in here + back:
            if is_control(a) and not _reads_window(a):
                carried.append(a)
                found.setdefault(a.sexpr(), a)
    return list(found.values())


def _mixed(t: z3.ExprRef) -> bool:
    """Does ``t`` read both a symbol and the window (one walk of its names)?"""
    ns = term_names(t)
    return any(n.startswith(CTL) for n in ns) and any(n.startswith("w") and n[1:].isdigit() for n in ns)


def _reads_window(a: z3.ExprRef) -> bool:
    """Does the atom read the window (then it is no predicate over the registers)?"""
    return any(n.startswith("w") and n[1:].isdigit() for n in term_names(a))
