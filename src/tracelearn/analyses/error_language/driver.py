"""Learning the language of error (pv): the bounds loop, learning, post-processing,
witnesses.

With explicit bounds one automaton is learned. Otherwise (paper Fig. 17) ``b`` runs
from 1 to ``bmax`` and ``bwl`` from the shortest CFG path to the target up to
``bwl_max``; the search stops when the automaton no longer changes and has no edge
leaving an accepting state. Bound-independent answers (the CFG pre-check) are kept
from one bound to the next.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from ...automata.analysis import dominating_edges, dominating_letters, doomed_states
from ...automata.dfa import DFA
from ...errors import TracelearnError
from ...ir.program import Program
from ...learning.lazy import learn
from ...learning.learner import LearningError
from ...learning.queries import QueryCache, QueryStats
from ...semantics.bitwuzla_backend import BitwuzlaWorker
from .alphabet import AlphabetSpec, Instrumented, Letter, instrument
from .cfg_oracle import CFGOracle
from .teacher import ErrorTeacher, TeacherStats, TeacherTimeout, Word


@dataclass
class ExplainOptions:
    alphabet: AlphabetSpec = field(default_factory=AlphabetSpec)
    bound: int | None = None
    bwl: int | None = None
    bmax: int = 4
    bwl_max: int = 12
    learner: str = "lstar"
    lazy: bool = True
    timeout_s: float = 600.0
    max_witnesses: int = 200
    loop_bounds: dict[str, int] = field(default_factory=dict)
    cbmc_semantics: bool = False  # partial loops, runtime errors do not stop runs (pv's CBMC setup)
    engine: str = "merged"  # how the bounded program is encoded: merged unwinding, or path by path
    progress: Callable[[str], None] | None = None  # a line of text as learning goes (a live display)


@dataclass
class BoundRun:
    b: int
    bwl: int
    states: int
    changed: bool
    back_edges: bool
    time_s: float
    membership: int
    solver_calls: int


@dataclass
class EdgeWitness:
    source: int
    letter: str
    target: int
    word: Word
    inputs: list


@dataclass
class ExplainResult:
    mode: str  # "error" or "program"
    program: Program
    inst: Instrumented
    dfa: DFA  # minimal, complete (with the sink)
    automaton: DFA  # sink removed: what the user sees
    b: int
    bwl: int
    converged: bool
    runs: list[BoundRun]
    query_stats: QueryStats
    teacher_stats: TeacherStats
    time_s: float
    witnesses: dict[Word, list]
    witness_records: dict[Word, list[dict]]
    edge_witnesses: list[EdgeWitness]
    dominating: tuple[str, ...]
    dominating_edges: tuple
    doomed: frozenset[int]
    notes: list[str] = field(default_factory=list)
    # Paths the final encoding could not follow (unsupported constructs): their words are
    # missing, so the automaton may lack failing words (never has extra ones).
    incomplete: list[str] = field(default_factory=list)

    @property
    def letters(self) -> list[Letter]:
        return self.inst.letters

    # The report builders' view (report/automaton_result.py).

    def title(self) -> str:
        return "Language of error" if self.mode == "error" else "Program explanation"

    def summary(self) -> str:
        what = "fails the assertion" if self.mode == "error" else "reaches the end"
        return (f"Bounds: b = {self.b}, bwl = {self.bwl}{'' if self.converged else ' (not converged)'}; "
                f"{self.automaton.num_states} states. Every word of at most {self.bwl} letters (the last one "
                f"included) the automaton accepts {what} on some run within the bounds, and every such run's "
                f"word is accepted.")

    def legend(self) -> str:
        return "Green edges dominate (every accepted word uses them); red states are doomed (acceptance is inevitable)."

    def letter_table(self) -> list[Letter]:
        final = Letter(self.inst.final, "final", [], ", ".join(sorted(self.inst.targets)))
        return list(self.inst.letters) + [final]

    def marked_edges(self) -> set[tuple[int, str, int]]:
        return set(self.dominating_edges)

    def marked_states(self) -> frozenset[int]:
        return self.doomed

    def marked_letters(self) -> set[str]:
        return set(self.dominating)


def explain_program(program: Program, opts: ExplainOptions) -> ExplainResult:
    with BitwuzlaWorker() as bitwuzla:  # (a result kept after this asks z3 alone)
        return _explain(program, opts, bitwuzla)


def _explain(program: Program, opts: ExplainOptions, bitwuzla: BitwuzlaWorker) -> ExplainResult:
    t0 = time.perf_counter()
    deadline = t0 + opts.timeout_s
    inst = instrument(program, opts.alphabet)
    cfg = CFGOracle(inst.program, inst.targets, inst.target_kinds)
    notes: list[str] = []
    if opts.bound is not None:
        b_range = [opts.bound]
    else:
        b_range = list(range(1, opts.bmax + 1))
    if opts.bwl is not None:
        bwl_range = [opts.bwl]
    else:
        shortest = cfg.min_events_to_target()
        if shortest is None:
            shortest = 0
            notes.append("no control-flow path reaches the target: the language is empty")
        lo = min(shortest + 1, opts.bwl_max)  # bwl counts the final letter too
        bwl_range = list(range(lo, max(lo, opts.bwl_max) + 1))
    guess = opts.alphabet.program_mode  # pv: guess "no" for errors, "yes" for program explanation
    stats = QueryStats()
    tstats = TeacherStats()
    cache = QueryCache()
    runs: list[BoundRun] = []
    prev: DFA | None = None
    final: DFA | None = None
    final_teacher: ErrorTeacher | None = None
    fb, fbwl = b_range[0], bwl_range[0]
    converged = False
    single = len(b_range) == 1 and len(bwl_range) == 1
    for b in b_range:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            notes.append(f"timeout before bound {b}")
            break
        try:
            teacher = ErrorTeacher(inst, b, bwl_range[0], cfg, remaining, opts.loop_bounds, max_bwl=bwl_range[-1],
                                   cbmc_semantics=opts.cbmc_semantics, stats=tstats, engine=opts.engine,
                                   bitwuzla=bitwuzla)
        except TeacherTimeout as e:
            hint = (" (where paths carry concrete data through long loops, --engine paths may encode "
                    "faster)") if opts.engine == "merged" else ""
            notes.append(f"timeout while encoding bound {b}: {e}{hint}")
            break
        for bwl in bwl_range:
            teacher.bwl = bwl
            if opts.progress is not None:
                say, t = opts.progress, teacher
                t.progress = lambda b=b, bwl=bwl: say(
                    f"b={b}, bwl={bwl}: {stats.membership_asked} membership queries, "
                    f"{stats.equivalence} conjectures, "
                    f"{t.stats.solver_calls} solver calls")
            teacher.set_deadline(max(0.001, deadline - time.perf_counter()))
            cache.retain_bound_independent()  # answers that depend on b or bwl must go
            r0 = time.perf_counter()
            m0, c0 = stats.membership_asked, teacher.stats.solver_calls
            try:
                res = learn(teacher, opts.learner, lazy=opts.lazy, guess=guess, stats=stats, cache=cache)
            except TeacherTimeout as e:
                notes.append(f"timeout while learning at b={b}, bwl={bwl}: {e}")
                break
            except LearningError as e:
                raise TracelearnError(f"learning failed at b={b}, bwl={bwl}: {e}") from None
            dfa = res.dfa
            if teacher.spurious_incomplete:
                notes.append(f"b={b}, bwl={bwl}: the conjecture accepts too many words of <= bwl letters to verify "
                             "each; the first ones were failing runs, the rest are unverified")
            shown = dfa.remove_sink()
            changed = prev is None or not prev.equivalent(dfa)
            back = shown.has_edges_from_accepting()
            runs.append(BoundRun(b, bwl, shown.num_states, changed, back, time.perf_counter() - r0,
                                 stats.membership_asked - m0, teacher.stats.solver_calls - c0))
            if final_teacher is not None and final_teacher is not teacher:  # (the last one answers witnesses)
                final_teacher.enc.close_session()
            final, final_teacher, fb, fbwl = dfa, teacher, b, bwl
            # pv's rule (Fig. 17), except that an empty automaton does not count as
            # converged: a longer bound may still reach the target.
            if not single and not changed and not back and not shown.is_empty():
                converged = True
                break
            prev = dfa
            if time.perf_counter() > deadline:
                notes.append(f"timeout after b={b}, bwl={bwl}")
                break
        if converged or time.perf_counter() > deadline:
            break
    if final is None or final_teacher is None:
        raise TracelearnError("no automaton was learned within the time limit: " + "; ".join(notes))
    if single:
        converged = True
    shown = final.remove_sink()
    witnesses, records = _word_witnesses(final_teacher, shown, fbwl, opts.max_witnesses, notes)
    edges = _edge_witnesses(final_teacher, shown)
    return ExplainResult(
        "program" if opts.alphabet.program_mode else "error", program, inst, final, shown, fb, fbwl, converged,
        runs, stats, tstats, time.perf_counter() - t0, witnesses, records, edges,
        dominating_letters(shown) if not shown.is_empty() else (),
        dominating_edges(shown) if not shown.is_empty() else (),
        doomed_states(shown) if not shown.is_empty() else frozenset(), notes,
        list(dict.fromkeys(final_teacher.enc.eq.unsupported)))


def _word_witnesses(teacher: ErrorTeacher, dfa: DFA, bwl: int, limit: int, notes: list[str]):
    """For every accepted word of at most bwl letters: inputs that drive the program
    along it (pv's --debug traces, Sec. 7.3)."""
    words: dict[Word, list] = {}
    records: dict[Word, list[dict]] = {}
    if dfa.is_empty() or limit <= 0:
        return words, records
    for w in dfa.iter_words(bwl):
        if len(words) >= limit:
            notes.append(f"witnesses stored for the first {limit} accepted words only")
            break
        try:
            wit = teacher.witness(tuple(w))
        except TeacherTimeout:
            notes.append("timeout while computing witnesses")
            break
        if wit is not None:
            words[tuple(w)] = wit.inputs
            records[tuple(w)] = wit.input_records
    return words, records


def _edge_witnesses(teacher: ErrorTeacher, dfa: DFA) -> list[EdgeWitness]:
    """The shortest accepted word through each edge, with its inputs."""
    if dfa.is_empty():
        return []
    to_state = _shortest_to(dfa)
    from_state = _shortest_from(dfa)
    out = []
    for (s, a), t in sorted(dfa.transitions.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        if s not in to_state or t not in from_state:
            continue
        word = to_state[s] + (a,) + from_state[t]
        try:
            wit = teacher.witness(word)
        except TeacherTimeout:
            wit = None
        out.append(EdgeWitness(s, a, t, word, wit.inputs if wit else []))
    return out


def _shortest_to(dfa: DFA) -> dict[int, Word]:
    return dfa.access_words()


def _shortest_from(dfa: DFA) -> dict[int, Word]:
    """Shortest word from each state to acceptance (BFS backwards)."""
    rev: dict[int, list[tuple[int, str]]] = {}
    for (s, a), t in dfa.transitions.items():
        rev.setdefault(t, []).append((s, a))
    best: dict[int, Word] = {q: () for q in dfa.accepting}
    q = deque(dfa.accepting)
    while q:
        t = q.popleft()
        for s, a in sorted(rev.get(t, []), key=lambda p: str(p[1])):
            if s not in best:
                best[s] = (a,) + best[t]
                q.append(s)
    return best
