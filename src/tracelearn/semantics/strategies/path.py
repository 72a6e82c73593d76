"""Single-path exploration: one path at a time, with solver frames over prefixes.

The strategy concolic testing, decision-vector membership (Pac-Man) and big-step
symbolic execution between input reads (Sigma*) share. A path is a sequence of
*choices*: the direction of each branch of the program's own code (a *decision*)
and, where a call through a pointer may reach several functions, the callee. A
``PathPoint`` is a resumable place on a path (state, call stack, frame of the
``PathTarget``); every choice opens a frame, so paths that share a prefix share its
constraints, and going back to a prefix is moving up the tree of frames.

- ``follow(word)`` decides whether a feasible path makes exactly the decisions of
  ``word`` (and ends right after the last: prefix-closed, Pac-Man Sec. 6). The
  points of every path explored are kept in a trie by their decisions: a word
  resumes from the deepest point on its prefix; infeasible prefixes are remembered
  where the route to them is the only one.
- ``explore(point, stop)`` enumerates, depth first, every feasible path from
  ``point`` until ``stop`` says so (e.g. before the next input read), the program
  ends, or a bound is reached: Sigma*'s big steps from a given state.

Procedures of our C library models run merged (``MergedUnwinding``) inside a path:
their branches are not decisions of the user's program.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterator

import z3

from ...ir.program import Branch, Call, Exit, Goto, Procedure, Return, SourceLoc, is_library_file
from .. import symexpr as S
from ..equation import Step
from ..symbolic import Frame, SymbolicSemantics, is_false
from ..symstate import SVal, State
from ..targets import PathNode, PathTarget
from ...z3dag import lit_false, lit_true
from .unwind import MergedUnwinding, UnwindOptions, back_edge_counts, loop_limit


@dataclass
class Cursor:
    """Where a procedure activation stands: the next statement of a block (index
    ``len(stmts)`` is the block's terminator)."""

    frame: Frame
    block: int = 0
    index: int = 0
    call: Call | None = None  # the caller's call statement this activation returns to
    call_loc: SourceLoc | None = None
    loops: dict[tuple[int, int], int] = field(default_factory=dict)  # back edge -> times taken (replaced, never mutated)
    # back edge -> the state the last time it was taken (``PathOptions.repeats_end``;
    # replaced, never mutated)
    seen: dict[tuple[int, int], tuple] = field(default_factory=dict)


# ``PathPoint.route``: forks on the way, and the letters of the options not taken since the last decision
Route = tuple[int, tuple[bool | None, ...]]


def _same_term(a: z3.ExprRef, b: z3.ExprRef) -> bool:
    return a is b or a.get_id() == b.get_id()  # (equal terms share one AST id)


def _same_state(a: tuple, b: tuple) -> bool:
    """Two ``Cursor.seen`` snapshots name the same state: the same registers and
    objects, each holding the same term, the same guard and allocations."""
    regs_a, mem_a, guard_a, allocs_a = a
    regs_b, mem_b, guard_b, allocs_b = b
    if allocs_a != allocs_b or regs_a.keys() != regs_b.keys() or mem_a.keys() != mem_b.keys():
        return False
    return (_same_term(guard_a, guard_b) and all(_same_term(t, regs_b[k]) for k, t in regs_a.items())
            and all(_same_term(t, mem_b[o]) for o, t in mem_a.items()))


def _owned(stack: list[Cursor]) -> list[Cursor]:
    """``stack`` to run on: a new list whose top cursor is a copy. Points share the
    cursors below (a deep recursion copied whole at every choice made following a
    path quadratic in its length); a cursor is copied before it is changed."""
    out = list(stack)
    if out:
        out[-1] = replace(out[-1])
    return out


@dataclass
class PathPoint:
    """A resumable place on a path."""

    state: State
    stack: list[Cursor]
    node: PathNode  # the solver frame this point's path condition ends in
    decisions: tuple[bool, ...] = ()
    decision_ids: tuple[str, ...] = ()
    statements: int = 0  # statements executed so far
    allocs: tuple[int, int] = (0, 0)  # the stack and heap bump pointers
    user_site: SourceLoc | None = None
    stopped: bool = False  # ``stop`` held at its statement: going on runs that statement first
    unwound: str = ""  # the choice that led here went past a loop or recursion bound: the path is cut
    repeats: str = ""  # the choice that led here took a back edge to the state it had there before
    # How many choices on the way here had another option that could have made the
    # same decisions (a sub-condition of ``a || b``, a callee), and the letters the
    # options not taken since the last decision could make (None: not yet known).
    # No forks: every path making this point's decisions passes through it.
    route: Route = (0, ())

    @property
    def forks(self) -> int:
        return self.route[0]

    def at(self) -> SourceLoc | None:
        if not self.stack:
            return None
        c = self.stack[-1]
        blk = c.frame.proc.blocks[c.block]
        return blk.stmts[c.index].loc if c.index < len(blk.stmts) else blk.term.loc


@dataclass
class PathEnd:
    """How a path ended. ``status``: ``exit`` (the program ended), ``word`` (the
    decisions asked for were made), ``stopped`` (``stop`` held before a statement:
    ``point`` is there), ``infeasible``, ``limit`` (a decision or statement bound),
    ``unwound`` (a loop or recursion went past ``PathOptions.loop_bound``: the path
    is cut, as the model checker's unwinding cuts it) or ``unknown`` (the solver
    could not decide). A library model's unwinding bound or an
    unsupported construct met on the way shows in the target (``eq.unwinding_hit``,
    ``eq.unsupported``), not in the status."""

    status: str
    decisions: tuple[bool, ...]
    decision_ids: tuple[str, ...] = ()
    point: PathPoint | None = None
    reason: str = ""
    repeated: bool = False  # a ``limit`` because a loop came back to the same state (``repeats_end``)


@dataclass
class PathOptions:
    max_decisions: int = 10_000  # decisions on one path before it ends as ``limit``
    max_statements: int = 1_000_000  # statements on one path before ``limit``
    eager: bool = True  # ask the solver at every choice (prunes early; else at the end only)
    library_bound: int = 32  # unwinding of our C library models inside a path
    # One decision per source condition (``a && b`` is one letter, read where the
    # condition is decided: ``Branch.outcome``), or one per branch of the IR.
    split_conditions: bool = True
    # Loops and recursion: at most this many iterations per entry of a loop (nested
    # calls of one procedure), as the model checker's ``--bound``; None: no bound.
    loop_bound: int | None = None
    loop_bounds: dict[str, int] = field(default_factory=dict)  # one loop's own bound ("file:line")
    # A branch whose condition is constant on the path is no choice: no decision, no
    # solver frame (for callers that read paths, not decision words).
    fold_constants: bool = False
    # A path that takes a loop's back edge with the state it had there the time
    # before (the same values, memory and allocations) repeats that iteration forever:
    # it ends at once as ``limit``, not after ``max_statements``. The solver's path
    # condition is not compared: from the same state the same iteration is feasible again.
    repeats_end: bool = False


@dataclass
class _Choice:
    kind: str  # "decision" | "callee"
    options: list[tuple[object, z3.BoolRef]]  # (label, condition)
    decision_id: str = ""
    args: list[SVal] = field(default_factory=list)  # callee: the call's arguments
    letters: tuple[bool | None, ...] = (True, False)  # decision: the letter each option makes (None: none yet)


Stop = Callable[[object], bool]

MAX_STORED_POINTS = 4096  # points a ``follow`` may resume from (each holds a state)
MAX_DEAD_NODES = 200_000  # nodes of the trie of infeasible prefixes
# Past the first DENSE_POINTS decisions of a path, a point is kept after every
# POINT_STRIDE-th decision only: a word resumes at most that many decisions early, and
# the points kept cover paths of thousands of decisions (a sampler's runs) many times.
DENSE_POINTS = 64
POINT_STRIDE = 8


def _route(route: Route, choice: _Choice, i: int) -> Route:
    """``PathPoint.route`` after taking option i of ``choice``: a fork is counted when
    a letter is made that an option not taken since the last letter could have made
    too (``m < 0 || m > M`` decided false has none: both options not taken make true)."""
    forks, pending = route
    if choice.kind != "decision":
        return forks + (len(choice.options) > 1), pending
    a = choice.letters[i]
    pending = pending + tuple(b for j, ((_, c), b) in enumerate(zip(choice.options, choice.letters))
                              if j != i and not lit_false(c))
    if a is None:
        return forks, pending
    return forks + any(b is None or b == a for b in pending), ()


class _Unwound(Exception):
    """A call went past the recursion bound (the path is cut)."""


class PathExplorer:
    """Paths of one program over one ``PathTarget`` solver."""

    def __init__(self, sem: SymbolicSemantics, options: PathOptions | None = None) -> None:
        if not isinstance(sem.target, PathTarget):
            raise TypeError("a path strategy needs a PathTarget")
        self.sem = sem
        self.target: PathTarget = sem.target
        self.opt = options or PathOptions()
        self.library = MergedUnwinding(sem, UnwindOptions(bound=self.opt.library_bound))
        # The points after each choice, by their decisions (a trie: True/False children,
        # "p" the last point stored there, "s" the last with no fork on its route), so a
        # word resumes from the deepest point on its prefix, on any path explored.
        self._trie: dict = {}
        self._stored = 0
        # Prefixes known infeasible where the route to them is the only one, in a trie
        # ("x": one ends here): one walk per word.
        self._dead: dict = {}
        self._dead_nodes = 0
        self.root: PathPoint | None = None

    # ---------------------------------------------------------------- start

    def start(self, entry: str | None = None) -> PathPoint:
        """The point before the first statement of ``entry`` (default: the program's
        entry), globals initialised, parameters nondeterministic inputs."""
        sem = self.sem
        program = sem.program
        st = State(z3.BoolVal(True))
        sem.init_globals(st)
        res = self.library.call_procedure(st, program.procedures[program.init], [], SourceLoc("", 0, 0))
        if res is None:
            raise ValueError("the program's initialiser does not terminate")
        st = res[0]
        proc = program.procedures[entry or program.entry]
        args = sem.entry_args(st, proc)
        sem.frames = []
        frame, st = sem.enter(st, proc, args, proc.loc, entry=True)
        st = self._commit(st)
        point = self._point(st, [Cursor(frame, call_loc=proc.loc)], (), ())
        self.root = point
        self._trie, self._stored = {}, 0
        self._remember(point)
        return point

    # ---------------------------------------------------------------- queries

    def follow(self, word: tuple[bool, ...] | list[bool]) -> PathEnd:
        """Is there a feasible path whose decisions begin with exactly ``word``? The
        answer ends right after the last decision (``word``), or earlier: ``exit``
        (the program ended first: ``word`` is no decision sequence of it),
        ``infeasible``, ``limit``, ``unknown``."""
        word = tuple(bool(b) for b in word)
        dead = self.dead_prefix(word)
        if dead is not None:
            return PathEnd("infeasible", word[:dead])
        if self.root is None:
            self.start()
        # Resume from the deepest point stored on the word's prefix; if the word is not
        # found from there, from the deepest one every path making its decisions passes
        # through.
        if self.opt.eager:
            # First one route, one question at its end: most words asked are members
            # (prefixes of runs, their extensions); the others are asked again, each
            # decision on the way asked (pruned at the first infeasible one).
            end = self._follow(word, eager=False, first_only=True)
            if end.status == "word" or (end.status == "infeasible" and self.dead_prefix(word) is not None):
                return end
        return self._follow(word, eager=self.opt.eager)

    def dead_prefix(self, word: tuple[bool, ...]) -> int | None:
        """The length of the shortest prefix of ``word`` known infeasible (on the only
        route that makes its decisions), or None."""
        t: dict | None = self._dead
        for k in range(len(word) + 1):
            assert t is not None
            if "x" in t:
                return k
            if k == len(word):
                return None
            t = t.get(word[k])
            if t is None:
                return None
        return None

    def _follow(self, word: tuple[bool, ...], eager: bool, first_only: bool = False) -> PathEnd:
        base = sure = self.root
        assert base is not None
        t: dict | None = self._trie
        for k in range(len(word) + 1):
            assert t is not None
            base, sure = t.get("p", base), t.get("s", sure)
            if k == len(word):
                break
            t = t.get(word[k])
            if t is None:
                break
        if base is not self.root and len(base.decisions) == len(word):
            # A point right after the word's decisions (going on from it, the run may
            # end before another decision: an error, an exit).
            self._restore(base)
            end = self._confirmed(PathEnd("word", base.decisions, base.decision_ids, base))
            if end.status == "word":
                return end
        want = word

        def choose(choice: _Choice, point: PathPoint) -> list[int]:
            if choice.kind == "decision":
                k = len(point.decisions)
                if k >= len(want):
                    return []
                return [i for i, a in enumerate(choice.letters) if a is None or a == want[k]]
            return list(range(len(choice.options)))

        end = self._first(base, choose, word, eager, first_only)
        if first_only:
            return end
        if end.status != "word" and base is not sure:
            # ``base`` was reached by one route through the program; the word may need
            # another (a condition's other branches, another callee).
            end = self._first(sure, choose, word, eager)
        if end.status == "infeasible":
            self._infeasible(word)
        return end

    def _first(self, base: PathPoint, choose, word: tuple[bool, ...], eager: bool,
               first_only: bool = False) -> PathEnd:
        """The first path from ``base`` that makes ``word``'s decisions (or ends with
        them); ``first_only``: what the first route tried comes to."""
        n = len(word)
        for end in self._search(base, choose, stop=None, until=n, eager=eager):
            if end.status in ("exit", "word"):
                end = self._confirmed(end)
            if end.status == "exit" and len(end.decisions) == n:
                return replace(end, status="word")  # a whole run's decisions: a member too
            if end.status != "infeasible" or first_only:
                return end
        return PathEnd("infeasible", word)

    def _confirmed(self, end: PathEnd) -> PathEnd:
        """``end`` if its path is feasible. Without ``eager`` the decisions on the way
        were not asked; either way a condition met after the last choice (an
        assumption, a callee's guard) is still in the state's guard."""
        guard = end.point.state.guard if end.point is not None else z3.BoolVal(True)
        pending = not lit_true(guard)
        if not pending and end.point is not None and end.point.node.known_sat:
            return end
        if end.point is not None:
            self._restore(end.point)
        r = self.target.check([guard] if pending else None)
        if r == z3.unsat:
            return PathEnd("infeasible", end.decisions, end.decision_ids)
        if r == z3.unknown:
            return PathEnd("unknown", end.decisions, end.decision_ids, reason="solver returned unknown")
        return end

    def explore(self, point: PathPoint | None = None, stop: Stop | None = None,
                max_decisions: int | None = None) -> Iterator[PathEnd]:
        """Every feasible path from ``point`` (depth first, then-branch first) until
        ``stop`` holds before a statement, the program ends, or ``max_decisions``
        more decisions were made (``limit``)."""
        if point is None:
            point = self.root if self.root is not None else self.start()
        until = len(point.decisions) + max_decisions if max_decisions is not None else None

        def choose(choice: _Choice, p: PathPoint) -> list[int]:
            return list(range(len(choice.options)))

        yield from self._search(point, choose, stop, until, limit_is_end=True, eager=self.opt.eager)

    def guided(self, point: PathPoint, pick: Callable[[list[z3.BoolRef]], int],
               stop: Stop | None = None) -> PathEnd:
        """The one path from ``point`` whose every choice ``pick`` makes (given the
        options' conditions, it returns the index of the option to take), until ``stop``
        holds before a statement or the program ends: a concolic run's big step
        (Sigma*), where the inputs decide each branch and no solver is asked."""
        def choose(choice: _Choice, p: PathPoint) -> list[int]:
            return [pick([c for _, c in choice.options])]

        for end in self._search(point, choose, stop, None, eager=self.opt.eager):
            return end
        return PathEnd("infeasible", point.decisions, point.decision_ids)

    def returned(self, point: PathPoint, value: SVal | None) -> PathPoint:
        """``point`` stopped before a call: the point after that call, which returned
        ``value`` (a call the strategy's caller models itself: Sigma*'s stream reads
        and writes, whose meaning depends on the stream position only it knows)."""
        self._restore(point)
        st = point.state.copy()
        stack = _owned(point.stack)
        cur = stack[-1]
        s = cur.frame.proc.blocks[cur.block].stmts[cur.index]
        assert isinstance(s, Call)
        self.sem.call_result(cur.frame, s, st, s.callee or "", value)
        cur.index += 1
        return self._point(st, stack, point.decisions, point.decision_ids, point.statements + 1, point.route)

    def call_args(self, point: PathPoint) -> list[SVal]:
        """The arguments of the call ``point`` stopped before."""
        self._restore(point)
        cur = point.stack[-1]
        s = cur.frame.proc.blocks[cur.block].stmts[cur.index]
        assert isinstance(s, Call)
        return self.sem.call_args(point.state.copy(), s)

    def model(self) -> z3.ModelRef | None:
        return self.target.model() if self._sat() else None

    # ---------------------------------------------------------------- search

    def _search(self, point: PathPoint, choose, stop: Stop | None, until: int | None,
                limit_is_end: bool = False, eager: bool = True) -> Iterator[PathEnd]:
        """Depth first from ``point`` (an explicit stack: paths may make thousands of
        decisions). ``eager``: ask the solver at every choice (else at callee choices
        and the last decision only)."""
        work: list[tuple] = [("run", point)]
        while work:
            item = work.pop()
            if item[0] == "run":
                p = item[1]
                self._restore(p)
                self.target.push()  # a point's own frame stays as it was: a resumed run gets a new one
                outcome = self._run(p, stop, until)
                if isinstance(outcome, PathEnd):
                    if outcome.status == "word" and limit_is_end:
                        outcome = replace(outcome, status="limit", reason="decision bound")
                    yield outcome
                    continue
                choice, at = outcome
                for i in reversed(choose(choice, at)):
                    if not lit_false(choice.options[i][1]):  # a constant condition needs no solver
                        work.append(("take", choice, at, i))
                continue
            _, choice, at, i = item
            cond = choice.options[i][1]
            letter = choice.letters[i] if choice.kind == "decision" else None
            self._restore(at)
            self.target.push()
            st = at.state.copy()
            st.guard = S.conj(st.guard, cond)
            st = self._commit(st)
            if letter is not None:
                decisions = at.decisions + (letter,)
                ids = at.decision_ids + (choice.decision_id,)
            else:
                decisions, ids = at.decisions, at.decision_ids
            nxt = self._advance_choice(at, choice, i, st, decisions, ids)
            if nxt.unwound:
                yield PathEnd("unwound", decisions, ids, nxt, reason=nxt.unwound)
                continue
            last = letter is not None and until is not None and len(decisions) >= until
            if not lit_true(cond) and (eager or choice.kind != "decision" or last):
                r = self.target.check()
                if r == z3.unsat:
                    if letter is not None and nxt.forks == 0:
                        self._infeasible(decisions)
                    yield PathEnd("infeasible", decisions, ids)
                    continue
                if r == z3.unknown:
                    yield PathEnd("unknown", decisions, ids, reason="solver returned unknown")
                    continue
            if nxt.repeats:  # (after the check: the repeated iteration is feasible)
                yield PathEnd("limit", decisions, ids, reason=nxt.repeats, repeated=True)
                continue
            n = len(decisions)
            if n <= DENSE_POINTS or n % POINT_STRIDE == 0 or last or choice.kind != "decision":
                self._remember(nxt)  # feasible, or not asked (not ``eager``)
            if last:  # a membership path ends right after its last decision
                yield PathEnd("limit" if limit_is_end else "word", decisions, ids, nxt,
                              reason="decision bound" if limit_is_end else "")
                continue
            work.append(("run", nxt))

    def _advance_choice(self, at: PathPoint, choice: _Choice, i: int, st: State,
                        decisions: tuple[bool, ...], ids: tuple[str, ...]) -> PathPoint:
        label = choice.options[i][0]
        route = _route(at.route, choice, i)
        stack = _owned(at.stack)
        cur = stack[-1]
        if choice.kind == "decision":
            t = cur.frame.proc.blocks[cur.block].term
            assert isinstance(t, Branch)
            src, dst = cur.block, (t.then if label else t.else_)
            cut = self._loop(cur, src, dst, st)
            again = self._repeats(cur, src, dst, st, at.allocs)
            cur.block, cur.index = dst, 0
            return replace(self._point(st, stack, decisions, ids, at.statements, route), unwound=cut, repeats=again)
        # A callee chosen: the call statement runs with that function.
        self._set_frames(stack)
        blk = cur.frame.proc.blocks[cur.block]
        s = blk.stmts[cur.index]
        cur.index += 1
        try:
            st, stack = self._call(stack, cur.frame, s, st, str(label), choice.args)
        except _Unwound as e:
            return replace(self._point(st, stack, decisions, ids, at.statements + 1, route), unwound=str(e))
        return self._point(st, stack, decisions, ids, at.statements + 1, route)

    def _loop(self, cur: Cursor, src: int, dst: int, st: State) -> str:
        """Count a jump ``src -> dst`` of ``cur``'s activation; a back edge past the loop
        bound cuts the path (an ``unwind`` step, as the model checker records): returns
        why, or ''."""
        if dst > src or self.opt.loop_bound is None:
            return ""
        limit, explicit = loop_limit(cur.frame.proc, dst, self.opt.loop_bound, self.opt.loop_bounds)
        if cur.loops.get((src, dst), 0) >= limit:
            what = f"loop at {cur.frame.proc.blocks[dst].loc}"
            self._unwind(st, what, cur.frame.proc.blocks[src].term.loc, "explicit" if explicit else "global")
            return what
        cur.loops = back_edge_counts(cur.loops, src, dst)
        return ""

    def _repeats(self, cur: Cursor, src: int, dst: int, st: State, allocs: tuple[int, int]) -> str:
        """With ``repeats_end``: why the jump ``src -> dst`` of ``cur``'s activation
        repeats the last iteration (its state is the one it had the last time it was
        taken), or ''. Terms are compared by z3's AST ids (equal terms share one)."""
        if not self.opt.repeats_end or dst > src:
            return ""
        # A snapshot of the terms themselves (shallow copies: no solver call per back
        # edge), compared by identity first; kept alive, so no AST id is reused.
        state = ({k: v.term for k, v in st.regs.items()}, dict(st.mem), st.guard, allocs)
        last = cur.seen.get((src, dst))
        if last is not None and _same_state(last, state):
            return f"the loop at {cur.frame.proc.blocks[dst].loc} comes back to the same state: it never ends"
        cur.seen = {**cur.seen, (src, dst): state}
        return ""

    def _unwind(self, st: State, what: str, loc: SourceLoc, origin: str) -> None:
        self.target.eq.unwinding_hit = True
        self.sem.step(Step("unwind", st.guard, loc, self.sem.fn, message=f"unwinding bound reached: {what}",
                           origin=origin))

    def _run(self, point: PathPoint, stop: Stop | None, until: int | None):
        """Run ``point``'s path to its next choice; returns (choice, point at it) or
        the ``PathEnd`` that came first."""
        sem = self.sem
        st = point.state.copy()
        stack = _owned(point.stack)
        decisions, ids = point.decisions, point.decision_ids
        count = point.statements
        first = point.stopped
        while stack:
            cur = stack[-1]
            self._set_frames(stack)
            blk = cur.frame.proc.blocks[cur.block]
            if cur.index < len(blk.stmts):
                s = blk.stmts[cur.index]
                if stop is not None and not first and stop(s):
                    here = replace(self._point(st, stack, decisions, ids, count, point.route), stopped=True)
                    return PathEnd("stopped", decisions, ids, here)
                first = False
                count += 1
                if count - point.statements > self.opt.max_statements:
                    return PathEnd("limit", decisions, ids, reason=f"{self.opt.max_statements} statements")
                if isinstance(s, Call):
                    args = sem.call_args(st, s)
                    callees = sem.callees(st, s)
                    if len(callees) > 1:
                        return (_Choice("callee", [(n, c) for n, c in callees], args=args),
                                self._point(st, stack, decisions, ids, count - 1, point.route))
                    if not callees:
                        return PathEnd("infeasible", decisions, ids, reason="call through an invalid pointer")
                    name, cond = callees[0]
                    if not lit_true(cond):
                        st.guard = S.conj(st.guard, cond)
                    cur.index += 1
                    try:
                        st, stack = self._call(stack, cur.frame, s, st, name, args)
                    except _Unwound as e:
                        here = self._point(st, stack, decisions, ids, count, point.route)
                        return PathEnd("unwound", decisions, ids, here, reason=str(e))
                else:
                    cur.index += 1
                    st = sem.exec_stmt(cur.frame, s, st)
                if st is None or is_false(st.guard):
                    return PathEnd("infeasible", decisions, ids)
                continue
            first = False
            t = blk.term
            sem.cur_loc = t.loc
            if isinstance(t, Goto):
                cut = self._loop(cur, cur.block, t.target, st)
                if cut:
                    here = self._point(st, stack, decisions, ids, count, point.route)
                    return PathEnd("unwound", decisions, ids, here, reason=cut)
                again = self._repeats(cur, cur.block, t.target, st, (sem.stack_alloc.cur, sem.heap_alloc.cur))
                if again:
                    return PathEnd("limit", decisions, ids, reason=again, repeated=True)
                cur.block, cur.index = t.target, 0
            elif isinstance(t, Branch):
                if until is not None and len(decisions) >= until:
                    return PathEnd("word", decisions, ids, self._point(st, stack, decisions, ids, count, point.route))
                if len(decisions) >= self.opt.max_decisions:
                    return PathEnd("limit", decisions, ids, reason=f"{self.opt.max_decisions} decisions")
                c = sem.decision(cur.frame, st, t)
                if self.opt.fold_constants and (lit_true(c) or lit_false(c)):
                    dst = t.then if lit_true(c) else t.else_
                    cut = self._loop(cur, cur.block, dst, st)
                    if cut:
                        here = self._point(st, stack, decisions, ids, count, point.route)
                        return PathEnd("unwound", decisions, ids, here, reason=cut)
                    again = self._repeats(cur, cur.block, dst, st, (sem.stack_alloc.cur, sem.heap_alloc.cur))
                    if again:
                        return PathEnd("limit", decisions, ids, reason=again, repeated=True)
                    cur.block, cur.index = dst, 0
                    continue
                split = self.opt.split_conditions
                # a constant condition's other side is literally false: no solver call for it
                neg = z3.BoolVal(not lit_true(c)) if lit_true(c) or lit_false(c) else z3.Not(c)
                return (_Choice("decision", [(True, c), (False, neg)],
                                t.decision_id if split or not t.source_id else t.source_id,
                                letters=(True, False) if split else t.outcome),
                        self._point(st, stack, decisions, ids, count, point.route))
            elif isinstance(t, Return):
                ret = sem.return_value(st, t)
                done = stack.pop()
                if stack:
                    stack[-1] = replace(stack[-1])  # the caller's cursor goes on: our own copy
                sem.leave(done.frame)
                sem.returned(done.frame, st, done.call_loc or t.loc)
                if not stack:
                    sem.end(st, done.frame.proc)
                    return PathEnd("exit", decisions, ids, self._point(st, stack, decisions, ids, count, point.route))
                caller = stack[-1]
                self._set_frames(stack)
                assert done.call is not None
                sem.call_result(caller.frame, done.call, st, done.frame.proc.name, ret)
            elif isinstance(t, Exit):
                sem.exit(cur.frame, st, t)
                return PathEnd("exit", decisions, ids, self._point(st, [], decisions, ids, count, point.route))
        return PathEnd("exit", decisions, ids)

    def _call(self, stack: list[Cursor], frame: Frame, s: Call, st: State, name: str,
              args: list[SVal]) -> tuple[State | None, list[Cursor]]:
        sem = self.sem
        proc: Procedure | None = sem.program.procedures.get(name)
        if proc is None:
            st2, ret = sem.library_call(st, name, args, s)
        elif is_library_file(proc.loc.file):
            res = self.library.call_procedure(st, proc, sem.procedure_args(st, proc, args, s), s.loc)
            if res is None:
                return None, stack
            st2, ret = res
        else:
            if self.opt.loop_bound is not None and sum(c.frame.proc is proc for c in stack) > self.opt.loop_bound:
                what = f"recursion of {proc.name}"
                self._unwind(st, what, s.loc, "global")
                raise _Unwound(what)
            fitted = sem.procedure_args(st, proc, args, s)
            callee, st2 = sem.enter(st, proc, fitted, s.loc)
            return st2, stack + [Cursor(callee, call=s, call_loc=s.loc)]
        if st2 is None:
            return None, stack
        sem.call_result(frame, s, st2, name, ret)
        return st2, stack

    # ---------------------------------------------------------------- points

    def _commit(self, st: State) -> State:
        """Move the state's guard into the solver (the path condition): later steps
        carry only what came after the last choice."""
        if not lit_true(st.guard):
            self.target.constrain(st.guard)
            st = st.copy(z3.BoolVal(True))
        return st

    def _point(self, st: State, stack: list[Cursor], decisions, ids, count: int = 0,
               route: Route = (0, ())) -> PathPoint:
        sem = self.sem
        return PathPoint(st.copy(), list(stack), self.target.node, decisions, ids, count,
                         (sem.stack_alloc.cur, sem.heap_alloc.cur), sem.user_site, route=route)

    def _infeasible(self, word: tuple[bool, ...]) -> None:
        if self._dead_nodes >= MAX_DEAD_NODES:  # a cache: start afresh (an explorer may live long)
            self._dead, self._dead_nodes = {}, 0
        t = self._dead
        for d in word:
            nxt = t.get(d)
            if nxt is None:
                nxt = t[d] = {}
                self._dead_nodes += 1
            t = nxt
        t["x"] = True

    def _remember(self, p: PathPoint) -> None:
        if self._stored >= MAX_STORED_POINTS:  # a point holds a state: start afresh
            self._trie, self._stored = {}, 0
        t = self._trie
        for d in p.decisions:
            t = t.setdefault(d, {})
        t["p"] = p
        if p.route == (0, ()):
            t["s"] = p
        self._stored += 1

    def _restore(self, point: PathPoint) -> None:
        """Put the solver and the semantics back where ``point`` was."""
        self.target.goto(point.node)
        self.sem.stack_alloc.cur, self.sem.heap_alloc.cur = point.allocs
        self.sem.user_site = point.user_site
        self._set_frames(point.stack)

    def _set_frames(self, stack: list[Cursor]) -> None:
        self.sem.frames = [c.frame for c in stack]

    def _sat_result(self) -> z3.CheckSatResult:
        return self.target.check()

    def _sat(self) -> bool:
        return self._sat_result() == z3.sat
