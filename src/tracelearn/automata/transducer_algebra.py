"""Operations on symbolic transducers with lookback (Sigma*, Sec. 4): composition,
union, totality, single-valuedness, and equivalence with a shortest separating input.

Equivalence follows the paper's reduction: two transducers are equivalent when their
union is single-valued (and, both deterministic, they have one domain). Single-valuedness
is decided on the square of the transducer, pairs of runs on one input, as Demers et
al.'s linear grammar does: a pair of runs is a derivation, and the outputs one run has
written and the other not yet are its *delay*. A pair whose outputs differ where both
have written, or end with a delay, is a separating input. The delay is kept as terms over
the window, shifted one place per step, so a filter that writes an element one step
later than another is still equal to it (the step-by-step product could not say).

With a lookback over 0 a node of the square is searched under every window, not only
under those its paths leave (the window's history is forgotten), so "equal" holds for
every input, and a difference found is a separating input only once an input solved
along its path separates the two transducers when run. A difference no input confirms
leaves the answer unknown, never a guess; so do delays longer than ``max_delay``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import z3

from ..bvterm import TermFacts, place_of, window_vars
from ..querytime import remaining_ms
from ..z3dag import all_of, assert_all, conjuncts, lit_false, negated
from .transducer import OUT_BITS, FinalMove, Move, Transducer, read_later, term_text
from .transducer_paths import path_input, solver, undecided


@dataclass
class Comparison:
    status: str  # "equal" | "different" | "unknown"
    witness: list[int] | None = None
    reason: str = ""
    pairs: int = 0  # nodes of the square searched
    solver_calls: int = 0


class NotComposable(ValueError):
    """An operation refused, with the reason (a composition whose window would grow
    without bound, say)."""


# ---------------------------------------------------------------- the moves of a state


def enabled(guard: z3.BoolRef, outputs: tuple, defined: int, final: bool = False,
            places: Callable[[z3.ExprRef], set[int] | frozenset[int]] = window_vars) -> z3.BoolRef:
    """When a move is enabled where the window's places ``1..defined`` hold elements
    (``w0`` too, unless it is a final move): its guard, or false when it reads a place
    that is empty there (before the stream's start)."""
    for t in (guard, *outputs):
        for j in places(t):
            if (final and j == 0) or j > defined:
                return z3.BoolVal(False)
    return guard


def choices(t: Transducer, q: int, defined: int, exclusive: bool = False,
            places: Callable = window_vars) -> list[tuple[Move, z3.BoolRef]]:
    """The moves of ``q`` with the condition under which the run takes each: any enabled
    one when ``t`` is nondeterministic, else the first enabled (``exclusive``: the
    guards of ``q`` are known not to overlap, so the first enabled is the one enabled)."""
    return _first_enabled(t.out_of(q), lambda m: enabled(m.guard, m.outputs, defined, False, places),
                          t.nondeterministic or exclusive)[0]


def end_choices(t: Transducer, q: int, defined: int, exclusive: bool = False,
                places: Callable = window_vars) -> list[tuple[z3.BoolRef, tuple]]:
    """What ``q`` writes at the end of the input, as (condition, outputs): an enabled
    final move (the first, when deterministic), or nothing when none is enabled."""
    ends, earlier = _first_enabled(t.finals_of(q),
                                   lambda f: enabled(f.guard, f.outputs, defined, True, places),
                                   t.nondeterministic or exclusive)
    return [(c, f.outputs) for f, c in ends] + [(_none_of(earlier), ())]


def _first_enabled(items: list, enable: Callable, any_one: bool) -> tuple[list, list[z3.BoolRef]]:
    """(item, condition of taking it) for each item ``enable`` does not rule out (None or
    false), and the conditions under which each is enabled. Unless ``any_one`` (a
    nondeterministic choice, or guards known not to overlap) an item is taken only
    where no earlier one is enabled: the run's first-enabled choice."""
    out = []
    earlier: list[z3.BoolRef] = []
    for it in items:
        en = enable(it)
        if en is None or z3.is_false(en):
            continue
        out.append((it, en if any_one or not earlier else all_of([en, *[negated(e) for e in earlier]])))
        earlier.append(en)
    return out, earlier


def _none_of(conds: list[z3.BoolRef]) -> z3.BoolRef:
    return z3.And(*[z3.Not(e) for e in conds]) if conds else z3.BoolVal(True)


def shifted(t: z3.ExprRef) -> z3.ExprRef:
    """``t`` one step later: the element at ``w<j>`` is then at ``w<j+1>``."""
    places = window_vars(t)
    if not places:
        return t
    bits = next(c.size() for c in _window_consts(t))
    return z3.substitute(t, *[(z3.BitVec(f"w{j}", bits), z3.BitVec(f"w{j + 1}", bits)) for j in places])


def _window_consts(t: z3.ExprRef):
    seen: set[int] = set()
    stack = [t]
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if place_of(e) is not None:
            yield e
        stack.extend(e.children())


@dataclass(frozen=True)
class _Split:
    """A condition's conjuncts, their AST ids and whether one is ``false``."""

    term: z3.BoolRef  # (kept: the ids are not reused while the entry lives)
    parts: list[z3.BoolRef]
    ids: frozenset[int]
    false: bool


class _Queries:
    """The solver calls of one operation, with its deadline."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.calls = 0
        self._exclusive: dict[tuple[int, int, bool], bool] = {}
        self.facts = TermFacts()  # the window places and conjuncts of terms, once each
        self._back: dict[int, tuple[z3.BoolRef, z3.BoolRef | None]] = {}
        self._solver: z3.Solver | None = None
        self.g_choices: dict[tuple, tuple[tuple, list]] = {}
        self._tied: dict[tuple[int, bool], tuple[z3.BoolRef, list[tuple[z3.ExprRef, z3.ExprRef]]]] = {}
        self._sat: dict[frozenset[int], tuple[list[z3.BoolRef], bool]] = {}
        self._splits: dict[int, _Split] = {}
        self._decided: dict[int, tuple[z3.BoolRef, bool | None]] = {}
        self._undecided: dict[int, tuple[z3.BoolRef, list[tuple[int, z3.BoolRef]] | None]] = {}

    def conjuncts(self, t: z3.BoolRef) -> list[z3.BoolRef]:
        """:func:`conjuncts` of ``t``, once per term (a composition's conditions are
        conjunctions of the same guards, split again and again)."""
        return self._split(t).parts

    def _split(self, t: z3.BoolRef) -> _Split:
        hit = self._splits.get(t.get_id())
        if hit is None:  # (the entry keeps the term: its id is not reused)
            parts = self.facts.conjuncts(t)
            hit = self._splits[t.get_id()] = _Split(t, parts, frozenset(c.get_id() for c in parts),
                                                      any(lit_false(c) for c in parts))
        return hit

    def undecided_conjuncts(self, t: z3.BoolRef) -> list[tuple[int, z3.BoolRef]] | None:
        """``t``'s conjuncts (with their AST ids) but those :meth:`decided` true; None
        when one is decided false. Once per term."""
        hit = self._undecided.get(t.get_id())
        if hit is None:  # (the entry keeps the term: its id is not reused)
            out: list[tuple[int, z3.BoolRef]] | None = []
            for c in self.conjuncts(t):
                v = None if self.places(c) else self.decided(c)
                if v is False:
                    out = None
                    break
                if not v:
                    out.append((c.get_id(), c))
            hit = self._undecided[t.get_id()] = (t, out)
        return hit[1]

    def decided(self, c: z3.BoolRef) -> bool | None:
        """A condition that reads no window place (g's guard on f's constant outputs),
        simplified: true, false, or None where the simplifier leaves it open; once per
        term (the same escape sequences are fed to g again and again)."""
        hit = self._decided.get(c.get_id())
        if hit is None:  # (the entry keeps the term: its id is not reused)
            v = z3.simplify(c)
            hit = self._decided[c.get_id()] = (c, True if z3.is_true(v) else False if z3.is_false(v) else None)
        return hit[1]

    def places(self, t: z3.ExprRef) -> frozenset[int]:
        """:func:`window_vars` of ``t``, once per term (the same guards are asked of again
        and again)."""
        return self.facts.places(t)

    def context(self, ctx: tuple, loose: frozenset[int], cond: z3.BoolRef, k: int) -> tuple[tuple, frozenset[int]]:
        """What the path says of the window one step on, after a move on ``cond`` from a
        node whose path said ``ctx``: each part moved back a place, and dropped when it
        reads no place of the window (``w0``..``w<k>``) any more (a part with a place
        both in and past it is kept whole), unless the path's equalities tie its places
        to the window's: ``x == x[-1]`` and ``x[-1] == 0`` keep ``x == 0``. Exact, unless a part dropped shares a place
        with one kept: then the kept part says less than the path did of its places.
        ``loose``: such places (those of the parent, ``loose``, moved back), while a
        kept part reads one; none: the context is all the path says of the window."""
        out: dict[int, z3.BoolRef] = {}
        leaving: list[z3.BoolRef] = []  # parts moved past the window
        for c in ctx + tuple(self.conjuncts(cond)):
            hit = self._back.get(c.get_id())
            if hit is None:  # (the entry keeps the term: its id is not reused)
                js = self.places(c)
                moved = shifted(c) if js else None
                hit = self._back[c.get_id()] = (c, moved, bool(js) and min(js) + 1 <= k)
            if hit[2]:
                out[hit[1].get_id()] = hit[1]
            elif hit[1] is not None:
                leaving.append(hit[1])
        gone: set[int] = set()
        if leaving:  # each kept where equalities tie its places to the window's (else dropped)
            pairs = self._ties_of(z3.And(*out.values(), *leaving), constants=False) if out else []
            for c in leaving:
                t = z3.substitute(c, *pairs) if pairs else c
                js = self.places(t)
                trivial = z3.is_eq(t) and t.arg(0).eq(t.arg(1))
                if js and max(js) <= k and not t.eq(c) and not trivial:
                    out[t.get_id()] = t
                else:
                    gone.update(self.places(c))
        kept = tuple(out[i] for i in sorted(out))
        read = set().union(*(self.places(c) for c in kept)) if kept else set()
        return kept, frozenset(({j + 1 for j in loose} | gone) & read)

    def tied(self, guard: z3.BoolRef, terms: tuple) -> tuple:
        """``terms`` (None: an empty place) with each window place that an equality of
        ``guard`` ties to a constant or to a nearer place replaced by that: after a step
        of f on ``x == x[-1]`` (it wrote nothing), g's ``x[-1]`` is f's ``x``, which
        stays in the window where ``x[-1]`` would move back out of it."""
        pairs = self._ties_of(guard)
        if not pairs:
            return terms
        return tuple(t if t is None or not self.places(t) else _simplified(z3.substitute(t, *pairs)) for t in terms)

    def _ties_of(self, guard: z3.BoolRef, constants: bool = True) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
        hit = self._tied.get((guard.get_id(), constants))
        if hit is None:  # (the entry keeps the guard: its id is not reused)
            hit = self._tied[(guard.get_id(), constants)] = (guard, _ties(guard, constants))
        return hit[1]

    def exclusive(self, t: Transducer, q: int, final: bool = False) -> bool:
        """Do the guards of ``q``'s moves (final moves: ``final``) not overlap? Then the
        first enabled move is the only one, and its condition needs no negation of the
        others (learned transducers': it keeps composed guards short)."""
        key = (id(t), q, final)
        if key not in self._exclusive:
            gs = [f.guard for f in t.finals_of(q)] if final else [m.guard for m in t.out_of(q)]
            self._exclusive[key] = not any(self.sat(z3.And(gs[i], z3.Or(*gs[i + 1:]))) for i in range(len(gs) - 1))
        return self._exclusive[key]

    def _check(self, parts: list[z3.BoolRef]) -> bool:
        if self._solver is None:
            self._solver = solver()
        s = self._solver
        s.push()
        try:
            if self.deadline is not None:
                s.set("timeout", remaining_ms(self.deadline))
            assert_all(s, parts)
            r = s.check()
            if r == z3.unknown:
                raise undecided(s, self.deadline)
            return r == z3.sat
        finally:
            s.pop()

    def sat(self, f: z3.BoolRef) -> bool:
        """Is ``f`` satisfiable? Asked once per set of conjuncts (a composition asks of
        the same guards along many of its states)."""
        return self.sat_all([f])

    def sat_all(self, fs: list[z3.BoolRef]) -> bool:
        """Is the conjunction of ``fs`` satisfiable? (:meth:`sat` without building it.)"""
        splits = [self._split(f) for f in fs]
        if any(x.false for x in splits):
            return False
        key = frozenset().union(*(x.ids for x in splits))
        hit = self._sat.get(key)
        if hit is not None:
            return hit[1]
        parts = [c for x in splits for c in x.parts]
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise TimeoutError("time limit")
        self.calls += 1
        answer = self._check(parts)
        self._sat[key] = (parts, answer)  # (the conjuncts kept: their ids are not reused)
        return answer


# ---------------------------------------------------------------- the square


def _align(left: tuple, right: tuple) -> tuple[list[z3.BoolRef], int, tuple]:
    """Two output sequences against each other: the equations of the part both wrote,
    and the delay (the side ahead, 0 or 1, and what it wrote beyond the other)."""
    n = min(len(left), len(right))
    eqs = [a == b for a, b in zip(left[:n], right[:n]) if not a.eq(b)]
    return eqs, (0 if len(left) > n else 1), (left[n:] or right[n:])


def _consts(values) -> tuple:
    return tuple(z3.BitVecVal(v, OUT_BITS) for v in values)


def square(a: Transducer, b: Transducer, confirm: Callable[[list[int]], bool], *, domains: bool,
           max_pairs: int = 100_000, max_delay: int = 32, deadline: float | None = None,
           max_length: int | None = None) -> Comparison:
    """Search pairs of runs of ``a`` and ``b`` on one input, breadth first, for one whose
    outputs differ (``domains``: or on which one has a run and the other not, both
    deterministic). ``confirm(input)``: do the transducers, run, really differ there? A
    query the solver leaves undecided by ``deadline`` raises TimeoutError.
    ``max_length``: only inputs of up to that many elements (a bounded composition's
    domain); none separating them, the answer is unknown, not equal."""
    if a.bits != b.bits:
        return Comparison("unknown", reason="the element types differ")
    qs = _Queries(deadline)
    res = Comparison("unknown")
    k = max(a.lookback, b.lookback)
    unconfirmed = ""
    paths = _Paths()

    def candidate(conds: tuple, bad: z3.BoolRef, length: int, node: tuple) -> bool:
        """A difference at the end of ``conds``: True when an input confirms it."""
        nonlocal unconfirmed
        if not qs.sat_all([*node[5], bad]):
            return False
        w = path_input(list(conds) + [bad], a.bits, length)
        if w is not None and confirm(w):
            res.status, res.witness = "different", w
            return True
        paths.doubt(_key(node))
        unconfirmed = unconfirmed or ("a difference that no input reaches" if w is None else
                                      f"a difference the transducers do not show when run on {w}")
        return False

    def ends_differ(node: tuple, conds: tuple) -> bool:
        """Do the outputs differ if the input ends at ``node``?"""
        qa, qb, d, side, lag, _, _ = node
        for ca, oa in end_choices(a, qa, d, qs.exclusive(a, qa, True), qs.places):
            for cb, ob in end_choices(b, qb, d, qs.exclusive(b, qb, True), qs.places):
                left, right = (lag + oa, ob) if side == 0 else (oa, lag + ob)
                eqs, _, rest = _align(left, right)
                if not rest and not eqs:
                    continue
                differ = z3.BoolVal(True) if rest else z3.Not(z3.And(*eqs))
                if candidate(conds, z3.And(ca, cb, differ), len(conds), node):
                    return True
        return False

    eqs, side, lag = _align(_consts(a.initial_output), _consts(b.initial_output))
    # a node: the two states, how much of the window the stream has filled, the side
    # ahead and what it wrote beyond the other, what the path said of the window (the
    # future reads no more of it: two paths to one node have the same futures, unless
    # the context is loose, and then several are taken), and its loose places
    start = (a.initial, b.initial, 0, side, lag, (), frozenset())
    if eqs and candidate((), z3.Not(z3.And(*eqs)), 0, start):
        return _done(res, qs)
    if ends_differ(start, ()):
        return _done(res, qs)
    paths.admit(_key(start), lag)
    queue = deque([(start, ())])
    # breadth first, and every candidate met while the nodes of depth n are expanded is
    # an input of n + 1 elements (a node's end is asked when the node is reached): the
    # first confirmed is a shortest along the paths searched
    while queue:
        node, conds = queue.popleft()
        qa, qb, d, side, lag, ctx, loose = node
        res.pairs += 1
        n = len(conds)
        if max_length is not None and n >= max_length:
            continue  # (its end was compared when it was reached)
        ma, mb = choices(a, qa, d, qs.exclusive(a, qa), qs.places), choices(b, qb, d, qs.exclusive(b, qb), qs.places)
        if domains:  # one has a move where the other has none
            for mine, theirs in ((ma, mb), (mb, ma)):
                none = z3.And(*[z3.Not(e) for _, e in theirs]) if theirs else z3.BoolVal(True)
                for _, e in mine:
                    if candidate(conds, z3.And(e, none), n + 1, node):
                        return _done(res, qs)
        for x, ex in ma:
            for y, ey in mb:
                both = z3.And(ex, ey)
                if not qs.sat_all([*ctx, both]):
                    continue
                left, right = (lag + x.outputs, y.outputs) if side == 0 else (x.outputs, lag + y.outputs)
                eqs, nside, rest = _align(left, right)
                if eqs and candidate(conds, z3.And(both, z3.Not(z3.And(*eqs))), n + 1, node):
                    return _done(res, qs)
                if len(rest) > max_delay:
                    unconfirmed = unconfirmed or f"one writes more than {max_delay} elements ahead of the other"
                    continue
                if eqs and not qs.sat_all([*ctx, both, *eqs]):
                    continue
                # (an element an equality of the step ties to a constant or a nearer place is
                # kept as that: a delay of repeats of one value stays one node)
                rest = tuple(shifted(t) for t in qs.tied(z3.And(both, *eqs), rest))
                if any(j > k + max_delay for t in rest for j in window_vars(t)):
                    unconfirmed = unconfirmed or f"one writes an element more than {max_delay} steps before the other"
                    continue
                nxt = (x.dst, y.dst, min(d + 1, k), nside, rest, *qs.context(ctx, loose, z3.And(both, *eqs), k))
                if not paths.wanted(_key(nxt), n + 1):
                    continue
                if nxt[6]:  # the context says less than this path: another as long may go further
                    paths.loosen(_key(nxt), n + 1)
                if paths.count >= max_pairs:
                    res.reason = f"more than {max_pairs} pairs of states"
                    return _done(res, qs)
                paths.admit(_key(nxt), rest)
                path = conds + (z3.And(both, *eqs),)
                if ends_differ(nxt, path):
                    return _done(res, qs)
                queue.append((nxt, path))
    if unconfirmed:
        res.reason = unconfirmed
    elif max_length is not None:
        res.reason = f"no input of up to {max_length} element{'s' * (max_length != 1)} separates them"
    else:
        res.status = "equal"
    return _done(res, qs)


class _Paths:
    """The nodes a breadth-first search has reached, and how many paths it took to each.
    One path per node, but a node where a candidate was not confirmed along the path
    taken (the window's history forgotten, it may need another) admits up to ``AGAIN``
    more, each searched from there with its own conditions; and a node whose context
    is loose (:meth:`_Queries.context`) as many more of its first path's length (a
    shortest input may go on along one of them only)."""

    AGAIN = 16

    def __init__(self) -> None:
        self.taken: dict[tuple, int] = {}
        self.doubtful: set[tuple] = set()
        self.loose: dict[tuple, int] = {}  # key -> the length of its first path
        self.count = 0
        self.alive: list[tuple] = []  # the terms whose ids are in the keys: z3 reuses a freed id

    def wanted(self, key: tuple, length: int = 0) -> bool:
        n = self.taken.get(key, 0)
        return n == 0 or ((key in self.doubtful or self.loose.get(key) == length) and n <= self.AGAIN)

    def admit(self, key: tuple, terms: tuple = ()) -> None:
        self.taken[key] = self.taken.get(key, 0) + 1
        self.count += 1
        self.alive.append(terms)

    def doubt(self, key: tuple) -> None:
        self.doubtful.add(key)

    def loosen(self, key: tuple, length: int) -> None:
        if key not in self.taken:  # (a first path with an exact context is enough)
            self.loose[key] = length


def _key(node: tuple) -> tuple:
    qa, qb, d, side, lag, ctx, _ = node
    return qa, qb, d, side if lag else 0, tuple(t.get_id() for t in lag), tuple(c.get_id() for c in ctx)


def _done(res: Comparison, qs: _Queries) -> Comparison:
    res.solver_calls = qs.calls
    return res


def equivalence(a: Transducer, b: Transducer, **limits) -> Comparison:
    """Are ``a`` and ``b`` the same function? With a nondeterministic one: is their union
    single-valued (every two runs on an input write the same), the reduction of the
    paper; domains are then not compared (a nondeterministic run that stops says nothing
    of the others). ``witness``: a shortest input the two transducers separate."""
    both_det = not a.nondeterministic and not b.nondeterministic

    def confirm(w: list[int]) -> bool:
        oa, ob = a.outputs(w), b.outputs(w)
        if both_det:
            return oa != ob
        return bool(oa) and bool(ob) and len(oa | ob) > 1

    found: Comparison | None = None  # the shortest separating input of the union's pairs of runs
    for t in (a, b):  # the union's pairs of runs of one operand
        if t.nondeterministic:
            own = single_valued(t, **limits)
            if own.status == "unknown":
                return own
            if own.status == "different" and (found is None or len(own.witness or []) < len(found.witness or [])):
                found = own
    try:
        res = square(a, b, confirm, domains=both_det, **limits)
    except TimeoutError:
        if found is None:
            raise
        return found  # (a real witness, which a shorter one of the mixed pairs may beat)
    if found is not None and not (res.status == "different" and len(res.witness or []) < len(found.witness or [])):
        return found  # the mixed pairs of runs separate no shorter input
    if res.status == "equal" and not both_det:
        res.reason = "every two runs on one input write the same (the domains are not compared)"
    return res


def single_valued(t: Transducer, **limits) -> Comparison:
    """Does every input have at most one output? ``equal``: yes; ``different``: the
    witness has two runs writing different outputs."""
    if not t.nondeterministic:
        return Comparison("equal", reason="a deterministic transducer has one run per input")
    return square(t, t, lambda w: len(t.outputs(w)) > 1, domains=False, **limits)


# ---------------------------------------------------------------- union and totality


def identity(bits: int) -> Transducer:
    """The identity filter on ``bits``-bit elements."""
    w0 = z3.BitVec("w0", bits)
    return Transducer(bits, 1, 0, [Move(0, z3.BoolVal(True), (z3.SignExt(OUT_BITS - bits, w0),), 0)], [], ())


def union(a: Transducer, b: Transducer) -> Transducer:
    """The nondeterministic transducer whose runs are those of ``a`` and of ``b``. A
    deterministic operand's moves from one state must not overlap (the first-enabled
    choice would become any choice): learned transducers' do not."""
    if a.bits != b.bits:
        raise NotComposable("the element types differ")
    for t, name in ((a, "first"), (b, "second")):
        if not t.nondeterministic and (t.overlapping() is not None or finals_overlap(t)):
            raise NotComposable(f"the {name} transducer's moves overlap: its first-enabled choice is not a union's")
    moves: list[Move] = []
    finals: list[FinalMove] = []
    # a fresh start state (never entered again) writes each operand's initial output
    # before its first move, and its final moves are each operand's output on no input
    for t, base in ((a, 1), (b, 1 + a.states)):
        pre = _consts(t.initial_output)
        for m in t.moves:
            moves.append(Move(m.src + base, m.guard, m.outputs, m.dst + base))
            if m.src == t.initial:
                moves.append(Move(0, m.guard, pre + m.outputs, m.dst + base))
        finals += [FinalMove(f.src + base, f.guard, f.outputs) for f in t.finals]
        finals += [FinalMove(0, z3.BoolVal(True), _consts(out)) for out in sorted(t.outputs([]))]
    names = ["start"] + [f"a:{n}" for n in (a.names or [str(i) for i in range(a.states)])] \
        + [f"b:{n}" for n in (b.names or [str(i) for i in range(b.states)])]
    return Transducer(a.bits, 1 + a.states + b.states, 0, moves, finals, (), names, a.chars and b.chars,
                      nondeterministic=True)


def finals_overlap(t: Transducer) -> bool:
    """Do two final moves of one state overlap (or may: an undecided pair counts)?"""
    for q in range(t.states):
        fs = [f.guard for f in t.finals_of(q)]
        for i in range(len(fs)):
            for j in range(i + 1, len(fs)):
                s = solver()
                s.add(fs[i], fs[j])
                if s.check() != z3.unsat:
                    return True
    return False


@dataclass
class Totality:
    status: str  # "total" | "partial" | "unknown"
    witness: list[int] | None = None  # a shortest input with no run
    reason: str = ""
    solver_calls: int = 0


def totality(t: Transducer, max_states: int = 100_000, deadline: float | None = None) -> Totality:
    """Does ``t`` have a run on every input (its domain is every stream)? ``partial``
    with a shortest input it has none on."""
    qs = _Queries(deadline)
    k = t.lookback
    start = (t.initial, 0)
    paths = _Paths()
    paths.admit(start)
    queue = deque([(start, ())])
    unconfirmed = ""
    while queue:
        (q, d), conds = queue.popleft()
        ch = choices(t, q, d, qs.exclusive(t, q), qs.places)
        stuck = z3.And(*[z3.Not(e) for _, e in ch]) if ch else z3.BoolVal(True)
        if qs.sat(stuck):
            w = path_input(list(conds) + [stuck], t.bits, len(conds) + 1)
            if w is not None and not t.outputs(w):
                return Totality("partial", w, "", qs.calls)
            paths.doubt((q, d))
            unconfirmed = unconfirmed or "a state without a move for some window that no input reaches"
        for m, e in ch:
            nxt = (m.dst, min(d + 1, k))
            if paths.wanted(nxt) and qs.sat(e):
                if paths.count >= max_states:
                    return Totality("unknown", None, f"more than {max_states} states", qs.calls)
                paths.admit(nxt)
                queue.append((nxt, conds + (e,)))
    if unconfirmed:
        return Totality("unknown", None, unconfirmed, qs.calls)
    return Totality("total", None, "", qs.calls)


# ---------------------------------------------------------------- composition


def compose(f: Transducer, g: Transducer, max_lookback: int = 16, max_states: int = 10_000,
            deadline: float | None = None, bound: int | None = None) -> Transducer:
    """``g`` after ``f``: a transducer whose output on ``x`` is ``g``'s on ``f``'s output
    on ``x``. Its window combines the two: g's last elements are f's outputs, terms over
    f's window, kept in the state and shifted a place per step; a place no run of g
    reads again is forgotten (:func:`_forget`), and one the step's guard equates with a
    constant or a nearer place is kept as that (:meth:`_Queries.tied`). Refused (NotComposable)
    when f may write a value outside g's element type (f writes C ints; g's transducer
    says nothing of an element it cannot read), when the window would exceed
    ``max_lookback`` (f writes nothing for ever longer runs while g looks back), when an
    operand is nondeterministic, or when g has no move for an output f writes at the
    end of the input (a run there stops, which no final move can say).

    ``bound``: the composition on inputs of up to ``bound`` elements only (no move
    reads one more), each state kept apart by its depth. Its window is at most f's and
    ``bound`` more, so ``max_lookback`` does not apply: where g looks back past
    unboundedly many steps in which f writes nothing, this is still exact on short
    inputs (a separating input found there is a real one)."""
    if f.nondeterministic or g.nondeterministic:
        raise NotComposable("composition is built for deterministic transducers")
    qs = _Queries(deadline)
    kf, kg, bits = f.lookback, g.lookback, g.bits
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def fits(cond: z3.BoolRef, outs: tuple) -> None:
        for o in outs:
            if bits < o.size() and qs.sat(z3.And(cond, z3.Or(o < low, o > high))):
                raise NotComposable(f"the first transducer may write a value outside the second's "
                                    f"{bits}-bit elements (its output {term_text(o)})")

    def element(o: z3.ExprRef) -> z3.ExprRef:
        """f's output as g's element (it fits: ``fits``): a sign-extended element is the
        element, a constant its low bits."""
        if o.size() == bits:
            return o
        if z3.is_app_of(o, z3.Z3_OP_SIGN_EXT) and o.arg(0).size() == bits:
            return o.arg(0)
        return _simplified(z3.Extract(bits - 1, 0, o))

    def feed(qg: int, gwin: tuple, outs: tuple, context: list[z3.BoolRef]):
        """g run on ``outs`` from ``qg`` with window ``gwin``: every way, as (conditions,
        g's outputs, g's state, g's window)."""
        paths = [([], (), qg, gwin)]
        for o in outs:
            x = element(o)
            nxt = []
            for conds, written, q, win in paths:
                for y, cond in _g_choices(qs, g, q, (x, *win), qs.exclusive(g, q)):
                    if not qs.places(cond):  # on f's constants g's choice is decided: no solver
                        v = qs.decided(cond)
                        if v is False:
                            continue
                        taken = conds if v else conds + [cond]
                    elif qs.sat_all([*context, *conds, cond]):
                        taken = conds + [cond]
                    else:
                        continue
                    nxt.append((taken, written + _put(qs, y.outputs, (x, *win)), y.dst, ((x, *win)[:kg])))
            paths = nxt
        return paths

    # f's initial output, constants, fed to g from its start with an empty window
    fits(z3.BoolVal(True), _consts(f.initial_output))
    init = feed(g.initial, (None,) * kg, _consts(f.initial_output), [])
    if len(init) != 1:
        raise NotComposable("the second transducer has no move for the first's initial output")
    _, written, qg0, win0 = init[0]
    initial_output = tuple(g.initial_output) + tuple(_value(o) for o in written)
    index: dict[tuple, int] = {}
    names: list[str] = []
    moves: list[Move] = []
    finals: list[FinalMove] = []

    def state(qf: int, d: int, qg: int, win: tuple, depth: int) -> int:
        key = (qf, d, qg, tuple(None if t is None else t.get_id() for t in win), depth if bound is not None else 0)
        if key not in index:
            if len(index) >= max_states:
                raise NotComposable(f"the composition has more than {max_states} states")
            index[key] = len(index)
            alive.append(win)  # the window's terms kept: their ids are in the key, and z3 reuses a freed id
            names.append(f"{_name(f, qf)}.{_name(g, qg)}")
            todo.append((index[key], qf, d, qg, win, depth))
        return index[key]

    todo: deque = deque()
    alive: list[tuple] = []
    live = read_later(g)
    state(f.initial, 0, qg0, _forget(tuple(win0), live[qg0]), 0)
    while todo:
        s, qf, d, qg, win, depth = todo.popleft()
        for x, cond in ([] if depth == bound else choices(f, qf, d, qs.exclusive(f, qf), qs.places)):
            if not qs.sat(cond):
                continue
            fits(cond, x.outputs)
            for conds, written, qg2, win2 in feed(qg, win, x.outputs, [cond]):
                guard = _conjunction(qs, [cond, *conds])
                win2 = qs.tied(guard, win2)
                win3 = _forget(tuple(None if t is None else shifted(t) for t in win2), live[qg2])
                if bound is None and any(t is not None and max(window_vars(t), default=0) > max_lookback
                                         for t in win3):
                    raise NotComposable(
                        f"the composition's window would exceed {max_lookback} elements: the second "
                        "transducer looks back past steps in which the first writes nothing")
                moves.append(Move(s, guard, tuple(_ground(qs, o) for o in written),
                                  state(x.dst, min(d + 1, kf), qg2, win3, depth + 1)))
        for cond, outs in end_choices(f, qf, d, qs.exclusive(f, qf, True), qs.places):
            if not qs.sat(cond):
                continue
            fits(cond, outs)
            paths = feed(qg, win, outs, [cond])
            if qs.sat(z3.And(cond, *[z3.Not(z3.And(*c)) for c, *_ in paths])):
                raise NotComposable("the second transducer has no move for an output the first writes "
                                    "at the end of the input")
            for conds, written, qg2, win2 in paths:
                for gcond, gouts in _g_ends(qs, g, qg2, win2, qs.exclusive(g, qg2, True)):
                    full = _conjunction(qs, [cond, *conds, gcond])
                    if qs.sat(full):
                        finals.append(FinalMove(s, full,
                                                tuple(_ground(qs, o) for o in written + gouts)))
    return Transducer(f.bits, len(index), 0, moves, finals, initial_output, names, f.chars)


def _ties(guard: z3.BoolRef, constants: bool = True) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """The substitution the equalities of ``guard`` between window places (each maybe
    widened, as C promotes) and constants define: a place to the constant it equals,
    else to the nearest place it equals (``constants`` False: places only, so that an
    equality with a constant moves to the nearer place, not to ``0 == 0``)."""
    parent: dict[int, z3.ExprRef] = {}  # a place's index -> its tie (a nearer place, or a constant)

    def root(t: z3.ExprRef) -> z3.ExprRef:
        while place_of(t) in parent:
            t = parent[place_of(t)]
        return t

    # (simplified: a low byte of a widened element is the element, as in g's guard on f's output)
    eqs = [d for c in conjuncts(guard) if z3.is_eq(c) for d in [c, *conjuncts(z3.simplify(c))] if z3.is_eq(d)]
    for c in eqs:
        pair = _narrowed(c.arg(0), c.arg(1))
        if pair is None or (not constants and z3.is_bv_value(pair[1])):
            continue
        a, b = root(pair[0]), root(pair[1])
        if a.eq(b):
            continue
        if z3.is_bv_value(a) or (not z3.is_bv_value(b) and place_of(a) < place_of(b)):
            a, b = b, a  # (a is tied to b: a constant, else the nearer place)
        if z3.is_bv_value(a):
            continue  # two different constants: the move is never taken
        parent[place_of(a)] = b
    return [(z3.BitVec(f"w{j}", t.size()), root(t)) for j, t in sorted(parent.items()) if place_of(root(t)) != j]


def _narrowed(x: z3.ExprRef, y: z3.ExprRef) -> tuple[z3.ExprRef, z3.ExprRef] | None:
    """``x == y`` as an equation of a window place with a place or a constant of its
    width (the same widening of both sides dropped, a constant narrowed when the
    widening of its low bits gives it back), or None."""
    if z3.is_bv_value(x):
        x, y = y, x
    while z3.is_app(x) and x.decl().kind() in (z3.Z3_OP_SIGN_EXT, z3.Z3_OP_ZERO_EXT):
        if z3.is_bv_value(y):
            low = z3.simplify(z3.Extract(x.arg(0).size() - 1, 0, y))
            back = z3.SignExt if x.decl().kind() == z3.Z3_OP_SIGN_EXT else z3.ZeroExt
            if not z3.simplify(back(x.params()[0], low)).eq(y):
                return None  # (a value the widened place never has: no tie)
            y = low
        elif z3.is_app(y) and y.decl().kind() == x.decl().kind() and y.params() == x.params():
            y = y.arg(0)
        else:
            return None
        x = x.arg(0)
    if place_of(x) is None or not (place_of(y) is not None or z3.is_bv_value(y)) or x.size() != y.size():
        return None
    return x, y


def _forget(win: tuple, live: frozenset[int]) -> tuple:
    """g's window (``win[i]`` is its ``w<i+1>``) with the places no run of g from here
    reads emptied: a composed state does not keep (and is not told apart by) f's
    outputs g will never look at again, which would otherwise shift back without end
    while f writes nothing."""
    return tuple(t if i + 1 in live else None for i, t in enumerate(win))


def _g_choices(qs: _Queries, g: Transducer, q: int, win: tuple, exclusive: bool) -> list[tuple[Move, z3.BoolRef]]:
    """g's moves from ``q`` on the window ``win`` (terms, None before g's start) with the
    conditions of taking each (the first enabled); a condition on f's constants alone
    decided, and those never taken left out. Asked once per state and window (an
    escaper's outputs are mostly constants, fed to g again at every composed state)."""
    key = (id(g), q, exclusive, tuple(-1 if t is None else t.get_id() for t in win))
    hit = qs.g_choices.get(key)
    if hit is None:
        out = []
        for m, c in _first_enabled(g.out_of(q), lambda m: _on_window(qs, m.guard, m.outputs, win), exclusive)[0]:
            if not qs.places(c):
                c = z3.simplify(c)
                if z3.is_false(c):
                    continue
            out.append((m, c))
        hit = qs.g_choices[key] = (win, out)  # (the window kept: its terms' ids are in the key)
    return hit[1]


def _g_ends(qs: _Queries, g: Transducer, q: int, win: tuple, exclusive: bool) -> list[tuple[z3.BoolRef, tuple]]:
    """g's end of input after window ``win`` (``win[0]`` its last element, as ``w1``)."""
    at_end = (None, *win)
    ends, earlier = _first_enabled(g.finals_of(q),
                                   lambda f: _on_window(qs, f.guard, f.outputs, at_end), exclusive)
    return [(c, _put(qs, f.outputs, at_end)) for f, c in ends] + [(_none_of(earlier), ())]


def _on_window(qs: _Queries, guard: z3.BoolRef, outputs: tuple, win: tuple) -> z3.BoolRef | None:
    """``guard`` with g's window put in, or None when the move reads an empty place."""
    for t in (guard, *outputs):
        for j in qs.places(t):
            if j >= len(win) or win[j] is None:
                return None
    return _put(qs, (guard,), win)[0]


def _put(qs: _Queries, terms: tuple, win: tuple) -> tuple:
    """``terms`` over g's window with ``w<j>`` replaced by ``win[j]``."""
    out = []
    for t in terms:
        sub = [(z3.BitVec(f"w{j}", win[j].size()), win[j]) for j in qs.places(t)]
        out.append(z3.substitute(t, *sub) if sub else t)
    return tuple(out)


def _conjunction(qs: _Queries, parts: list[z3.BoolRef]) -> z3.BoolRef:
    """The conjunction of ``parts`` flattened, each conjunct once, those that read no
    window place decided (g's guards on f's constant outputs): a composed guard keeps
    only what depends on the input, and f's and g's guards say the same of an element
    g receives unchanged."""
    kept: list[z3.BoolRef] = []
    seen: set[int] = set()
    for part in parts:
        open_ = qs.undecided_conjuncts(part)
        if open_ is None:
            return z3.BoolVal(False)
        for i, c in open_:
            if i not in seen:
                seen.add(i)
                kept.append(c)
    return all_of(kept)


def _ground(qs: _Queries, t: z3.ExprRef) -> z3.ExprRef:
    """An output term, a constant folded (g's output on f's constant output): what
    reads the window is kept as composed, which prints as the two filters wrote it."""
    return t if qs.places(t) else z3.simplify(t)


def _simplified(t: z3.ExprRef) -> z3.ExprRef:
    """``t`` simplified, unless that drops a window place it reads: a move reading a
    place is not enabled before the stream reaches it, whatever its term says."""
    s = z3.simplify(t)
    return s if window_vars(s) == window_vars(t) else t


def _value(t: z3.ExprRef) -> int:
    v = z3.simplify(t)
    if not z3.is_bv_value(v):
        raise NotComposable("an initial output that is not a constant")
    n = v.as_long()
    return n - (1 << v.size()) if n >> (v.size() - 1) else n


def _name(t: Transducer, q: int) -> str:
    return t.names[q] if q < len(t.names) else str(q)
