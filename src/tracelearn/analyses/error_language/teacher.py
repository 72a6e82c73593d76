"""The teacher of the language of error (pv, Sec. 4) on one incremental encoding.

The instrumented program is unwound once for the bound ``b``. On that equation the
word of a path is the sequence of letters of the event steps whose guard holds, in
order; position counters ``idx`` number them. Queries are assumptions on the same
solver:

``bwl`` bounds the whole word, the final letter included: the paper's |α(π)| <= bwl, where
Fig. 9 records the assert letter with ``learn(0)`` like any event. So a path may emit at
most ``bwl - 1`` events before it fails.

- membership ``w``: word variables ``W_0..W_{bwl-2}`` and length ``L`` fixed by
  assumption literals; every executed event must match ``W[idx]``; a target check
  fails after exactly ``L`` events;
- batch membership (lazy learning): the disjunction of several words;
- conjecture ``A``: a failing path of at most ``bwl - 1`` events whose word A rejects
  (positive feedback, found by the solver with A's run encoded along the events);
  words A accepts that are not of the form ``Σ*·assert`` (negative, by automata);
  and accepted words of length <= bwl that are not members (negative, by
  membership queries, mostly answered by the control-flow pre-check).
"""

from __future__ import annotations

import time
from typing import Callable
from dataclasses import dataclass, field

import z3

from ...ir.program import PROPERTY_KINDS
from ...semantics.bitwuzla_backend import BitwuzlaWorker
from ...semantics.bmc import Encoding, SolverStats
from ...semantics.paths_encoding import PathsEncoding
from ...semantics.traces import extract
from ...z3dag import any_of
from ...semantics.strategies.unwind import UnwindOptions
from ...semantics.symbolic import SemanticsOptions, SymexLimit
from .alphabet import Instrumented
from .cfg_oracle import CFGOracle

Word = tuple[str, ...]
IDX_BITS = 16


@dataclass
class TeacherStats:
    membership: int = 0  # queries the teacher received
    precheck: int = 0  # answered by the pre-checks (no solver)
    solver_members: int = 0  # answered by the solver
    batch_queries: int = 0
    conjectures: int = 0
    encode_time_s: float = 0.0  # the encoding and the teacher's own literals
    spurious_checked: int = 0  # accepted words verified at conjecture time
    accepted_check_cut: int = 0  # conjectures whose accepted words were too many to verify all
    paths: int = 0  # --engine paths: the paths explored (of the last bound encoded)
    paths_cut: int = 0  # ... of which the loop or recursion bound (or a statement limit) cut
    solver: SolverStats = field(default_factory=SolverStats)  # counted by the encoding itself

    @property
    def solver_calls(self) -> int:
        return self.solver.calls

    @property
    def solver_time_s(self) -> float:
        return self.solver.time_s

    def to_json(self) -> dict:
        d = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items() if k != "solver"}
        d["solver_calls"] = self.solver.calls
        d["solver_time_s"] = round(self.solver.time_s, 4)
        return d


@dataclass
class Witness:
    word: Word
    inputs: list
    input_records: list[dict] = field(default_factory=list)


class ErrorTeacher:
    def __init__(self, inst: Instrumented, bound: int, bwl: int, cfg: CFGOracle,
                 timeout_s: float = 600.0, loop_bounds: dict[str, int] | None = None,
                 max_bwl: int | None = None, cbmc_semantics: bool = False,
                 stats: TeacherStats | None = None, engine: str = "merged",
                 bitwuzla: BitwuzlaWorker | None = None) -> None:
        """``stats``: where this teacher counts (shared by the teachers of every bound of
        one analysis: the totals need no adding up); ``bitwuzla``: the process the
        encoding's hard queries go to (None: z3 alone)."""
        self.inst = inst
        self.progress: Callable[[], None] | None = None  # told before each solver call (a live display)
        self.bound = bound
        self.bwl = bwl  # may be lowered or raised up to max_bwl between learning runs
        self.max_bwl = max(bwl, max_bwl or bwl)
        self.cfg = cfg
        self.final = inst.final
        self.alphabet: Word = inst.alphabet
        self.ids = {a: i for i, a in enumerate(self.alphabet)}
        self.stats = stats if stats is not None else TeacherStats()
        self.deadline = time.perf_counter() + timeout_s
        self.answers: dict[Word, bool] = {}  # solver answers at this bound
        self.witnesses: dict[Word, Witness] = {}
        self.spurious_incomplete = False  # the last conjecture's accepted words were not all verified
        t0 = time.perf_counter()
        sem_opts, unwind = SemanticsOptions(), UnwindOptions()
        if cbmc_semantics:
            # pv ran CBMC without runtime checks: runs go on past failed checks other than
            # the target (invalid reads give any value), and --unwind k takes a loop's back
            # edge at most k-1 times.
            sem_opts = SemanticsOptions(continue_kinds=frozenset(PROPERTY_KINDS), cut_props=frozenset(inst.targets))
            unwind = UnwindOptions(loop_bound_delta=-1)
        try:
            if engine == "paths":  # one path at a time (paths_encoding.py); the same questions after
                self.enc = PathsEncoding(inst.program, bound, lambda s: inst.is_target(s.prop_id, s.prop_kind),
                                         loop_bounds, timeout_s, deadline=self.deadline, semantics=sem_opts,
                                         stats=self.stats.solver)
                self.stats.paths, self.stats.paths_cut = self.enc.paths, self.enc.cut_paths
            else:
                self.enc = Encoding(inst.program, bound, loop_bounds, timeout_s, deadline=self.deadline,
                                    semantics=sem_opts, unwinding=unwind, stats=self.stats.solver,
                                    bitwuzla=bitwuzla)
        except SymexLimit as e:
            if time.perf_counter() >= self.deadline:
                raise TeacherTimeout(str(e)) from None
            raise
        self._build()
        self.stats.encode_time_s += time.perf_counter() - t0

    # ---------------------------------------------------------------- encoding

    def _build(self) -> None:
        eq = self.enc.eq
        bv = lambda v: z3.BitVecVal(v, IDX_BITS)  # noqa: E731
        self.W = [z3.BitVec(f"W#{k}", IDX_BITS) for k in range(self.max_bwl - 1)]
        self.L = z3.BitVec("L#", IDX_BITS)
        self.member_mode = z3.Bool("member_mode")
        self.events: list[tuple[z3.BoolRef, int, z3.BitVecRef]] = []  # guard, letter id, idx before
        self.fails: list[tuple[z3.BoolRef, z3.BitVecRef]] = []  # violation, idx at the check
        idx: z3.BitVecRef = bv(0)
        n = 0
        add = self.enc.add
        for s in eq.steps:
            if s.kind == "event" and s.letter in self.ids:
                before = idx
                n += 1
                nxt = z3.BitVec(f"idx#{n}", IDX_BITS)
                add(nxt == z3.If(s.guard, idx + 1, idx))
                self.events.append((s.guard, self.ids[s.letter], before))
                # Membership mode: executed events spell the queried word.
                lid = bv(self.ids[s.letter])
                add(z3.Implies(z3.And(self.member_mode, s.guard), z3.ULT(before, self.L)))
                for k in range(self.max_bwl - 1):
                    add(z3.Implies(z3.And(self.member_mode, s.guard, before == k), self.W[k] == lid))
                idx = nxt
            elif s.kind == "check" and self.inst.is_target(s.prop_id, s.prop_kind) and s.violation is not None:
                self.fails.append((s.violation, idx))
        self.fail_at_L = any_of([z3.And(v, i == self.L) for v, i in self.fails])
        self.fail_goal = self.enc.literal(self.fail_at_L)
        self._lits: dict[tuple[int, int], z3.BoolRef] = {}
        self._len_lits: dict[int, z3.BoolRef] = {}

    def _wlit(self, k: int, letter: int) -> z3.BoolRef:
        key = (k, letter)
        if key not in self._lits:
            b = z3.Bool(f"w{k}={letter}")
            self.enc.add(z3.Implies(b, self.W[k] == letter))
            self._lits[key] = b
        return self._lits[key]

    def _llit(self, n: int) -> z3.BoolRef:
        if n not in self._len_lits:
            b = z3.Bool(f"len={n}")
            self.enc.add(z3.Implies(b, self.L == n))
            self._len_lits[n] = b
        return self._len_lits[n]

    def _solve(self, assumptions: list, extra: list | None = None):
        if self.progress is not None:
            self.progress()
        self.enc.set_timeout(max(0.001, self.deadline - time.perf_counter()))
        r, model = self.enc.solve(None, assumptions, extra)  # counted in self.stats.solver
        if r == "unknown":
            raise TeacherTimeout(self.enc.last_unknown or "solver gave up")
        return r, model

    # ------------------------------------------------------------- pre-checks

    def precheck(self, word: Word) -> bool | None:
        """Solver-free answers: wrong shape, too long, or incompatible with the CFG."""
        if not word or word[-1] != self.final or self.final in word[:-1]:
            return False
        if any(a not in self.ids for a in word):
            return False
        if len(word) > self.bwl:
            return False
        if not self.cfg.compatible(word[:-1]):
            return False
        return None

    def precheck_is_bound_independent(self, word: Word) -> bool:
        return len(word) <= self.bwl

    # ------------------------------------------------------------- membership

    def member(self, word: Word) -> bool:
        self.stats.membership += 1
        pre = self.precheck(word)
        if pre is not None:
            self.stats.precheck += 1
            return pre
        if word in self.answers:
            return self.answers[word]
        self.stats.solver_members += 1
        events = word[:-1]
        assumptions = [self.member_mode, self.fail_goal, self._llit(len(events))]
        assumptions += [self._wlit(k, self.ids[a]) for k, a in enumerate(events)]
        r, model = self._solve(assumptions)
        ok = r == "sat"
        self.answers[word] = ok
        if ok and model is not None:
            self._store_witness(word, model)
        return ok

    def _store_witness(self, word: Word, model: z3.ModelRef) -> None:
        if word in self.witnesses:
            return
        try:
            cex = extract(self.enc.eq, model, frozenset({"assertion", "error-call"}) | self.inst.target_kinds)
        except ValueError:
            return
        self.witnesses[word] = Witness(word, cex.input_values, cex.inputs)

    def word_of(self, model: z3.ModelRef) -> Word:
        """The word of the path in ``model`` up to its failing target check."""
        fail_idx = None
        for v, i in self.fails:
            if z3.is_true(model.eval(v, model_completion=True)):
                fail_idx = model.eval(i, model_completion=True).as_long()
                break
        letters = [self.alphabet[l] for g, l, _ in self.events if z3.is_true(model.eval(g, model_completion=True))]
        if fail_idx is not None:
            letters = letters[:fail_idx]
        return tuple(letters) + (self.final,)

    def witness(self, word: Word) -> Witness | None:
        """Concrete inputs driving the program along ``word`` to the failure."""
        if word in self.witnesses:
            return self.witnesses[word]
        if self.precheck(word) is False:
            return None
        events = word[:-1]
        assumptions = [self.member_mode, self.fail_goal, self._llit(len(events))]
        assumptions += [self._wlit(k, self.ids[a]) for k, a in enumerate(events)]
        r, model = self._solve(assumptions)
        if r == "sat" and model is not None:
            self._store_witness(word, model)
        return self.witnesses.get(word)

    def set_deadline(self, seconds: float) -> None:
        self.deadline = time.perf_counter() + seconds

    def find_member(self, words: list[Word]) -> Word | None:
        """One of ``words`` that is in the language, or None (one solver call)."""
        cands = [w for w in words if self.precheck(w) is None and self.answers.get(w, True)]
        known = [w for w in cands if self.answers.get(w)]
        if known:
            return known[0]
        if not cands:
            return None
        self.stats.batch_queries += 1
        disj = []
        for w in cands:
            events = w[:-1]
            disj.append(z3.And(self.L == len(events), *[self.W[k] == self.ids[a] for k, a in enumerate(events)]))
        r, model = self._solve([self.member_mode, self.fail_goal], [any_of(disj)])
        if r != "sat":
            for w in cands:
                self.answers[w] = False
            return None
        w = self.word_of(model)
        self.answers[w] = True
        self._store_witness(w, model)
        return w

    def find_non_member(self, words: list[Word]) -> Word | None:
        for w in words:
            if not self.member(w):
                return w
        return None

    # ------------------------------------------------------------ conjectures

    def equivalent(self, hyp) -> Word | None:
        """A counterexample to ``hyp`` (a DFA over the alphabet), or None."""
        self.stats.conjectures += 1
        neg = self._shape_counterexample(hyp)
        if neg is not None:
            return neg
        pos = self._positive_feedback(hyp)
        if pos is not None:
            return pos
        return self._spurious_word(hyp)

    def _shape_counterexample(self, hyp) -> Word | None:
        """The shortest accepted word (up to bwl letters) that is not events
        followed by exactly one final letter: never a member, no solver needed."""
        from collections import deque

        start = (hyp.initial, 0, False)
        q = deque([(start, ())])
        seen = {start}
        while q:
            (s, finals, last), w = q.popleft()
            if s in hyp.accepting and not (finals == 1 and last):
                return w
            if len(w) >= self.bwl:
                continue
            for a in self.alphabet:
                t = hyp.transitions.get((s, a))
                if t is None:
                    continue
                key = (t, min(finals + (a == self.final), 2), a == self.final)
                if key not in seen:
                    seen.add(key)
                    q.append((key, w + (a,)))
        return None

    def _positive_feedback(self, hyp) -> Word | None:
        """A failing path of at most bwl - 1 events whose word the hypothesis rejects."""
        states = sorted({s for s, _ in hyp.transitions} | set(hyp.transitions.values()) | {hyp.initial})
        sink = -1
        bits = max(8, (len(states) + 2).bit_length() + 1)
        sv = lambda v: z3.BitVecVal(v, bits)  # noqa: E731

        def delta(s: z3.BitVecRef, letter: str) -> z3.BitVecRef:
            term: z3.BitVecRef = sv(sink)
            for q in states:
                t = hyp.transitions.get((q, letter))
                if t is not None:
                    term = z3.If(s == q, sv(t), term)
            return term

        extra = []
        cur: z3.BitVecRef = sv(hyp.initial)
        state_at: list[z3.BitVecRef] = []
        ev_i = 0
        # Walk the steps in order to know the hypothesis state at each target check.
        fails_iter = iter(self.fails)
        next_fail = next(fails_iter, None)
        n = 0
        for s in self.enc.eq.steps:
            if s.kind == "event" and s.letter in self.ids:
                n += 1
                st = z3.BitVec(f"hyp#{self.stats.conjectures}#{n}", bits)
                extra.append(st == z3.If(s.guard, delta(cur, s.letter), cur))
                cur = st
                ev_i += 1
            elif next_fail is not None and s.kind == "check" and s.violation is next_fail[0]:
                state_at.append(cur)
                next_fail = next(fails_iter, None)
        acc = lambda s: any_of([s == q for q in hyp.accepting])  # noqa: E731
        goal = any_of([z3.And(v, z3.ULT(i, self.bwl), z3.Not(acc(delta(st, self.final))))
                       for (v, i), st in zip(self.fails, state_at)])
        extra.append(goal)
        r, model = self._solve([], extra)
        if r != "sat":
            return None
        w = self.word_of(model)
        self.answers[w] = True
        self._store_witness(w, model)
        return w

    def _spurious_word(self, hyp, budget: int = 20000) -> Word | None:
        """An accepted word of length <= bwl that is not a member (shortlex order).

        The accepted words are enumerated (lazily: only prefixes that can still be
        accepted within bwl letters are extended), so the check stops after ``budget``
        words: ``spurious_incomplete`` then tells the caller that this conjecture's
        words were not all verified."""
        self.spurious_incomplete = False
        checked = 0
        for w in hyp.iter_words(self.bwl):
            if not w:
                continue
            checked += 1
            if checked % 256 == 0 and time.perf_counter() > self.deadline:
                raise TeacherTimeout("deadline reached while checking the conjecture's accepted words")
            self.stats.spurious_checked += 1
            if not self.member(w):
                return w
            if checked >= budget:
                self.spurious_incomplete = True
                self.stats.accepted_check_cut += 1
                return None
        return None


class TeacherTimeout(Exception):
    pass
