"""PAC verification (`tracelearn pac`, Pac-Man) on programs we wrote: the sample sizes
of eq. (1), the decision alphabet held against the symbolic path strategy, the
pushdown error automaton against a brute-force simulation, verdicts with replayed
witnesses, and learned languages checked word by word with the solver."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from tracelearn.analyses.pac.driver import PacOptions, verify
from tracelearn.analyses.pac.error_automaton import error_automaton
from tracelearn.automata.dfa import DFA
from tracelearn.automata.pushdown import RecursiveAutomaton, accepts, over_approximation_empty, \
    shortest_error_word
from tracelearn.cli.main import main
from tracelearn.frontend.lower import load_program
from tracelearn.ir.decisions import DecisionAlphabet, assertions_as_branches, decision_constants
from tracelearn.ir.program import SourceLoc
from tracelearn.ir.types import IntType
from tracelearn.ir.transform import copy_program
from tracelearn.learning.pac import batches_needed
from tracelearn.semantics.inputs import InputSource
from tracelearn.semantics.interpreter import Interpreter, InterpOptions
from tracelearn.semantics.strategies.concolic import STRATEGIES, ConcolicSampler, Sample, by_branch_order
from tracelearn.semantics.strategies.path import PathExplorer, PathOptions
from tracelearn.semantics.symbolic import SemanticsOptions, SymbolicSemantics
from tracelearn.semantics.targets import PathTarget

KINDS = frozenset({"assertion", "error-call"})
HEAD = "#include <assert.h>\nextern int __VERIFIER_nondet_int(void);\nextern void __VERIFIER_error(void);\n"

SAFE_RECURSIVE = HEAD + """
int f(int n) { if (n <= 0) return 0; return f(n - 1) + 1; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 5) return 0;
  int r = f(x);
  if (r != x) { ERROR: __VERIFIER_error(); }
  return 0;
}"""

BUG_LOOP = HEAD + """
int main(void) {
  int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int();
  int s = 0;
  for (int i = 0; i < 3; i++) { if (x > i && y == 7) s++; }
  assert(s < 3 || x < 100);
  return 0;
}"""

CONDITIONS = HEAD + """
int g(int v) { return v > 3 || v < -3; }
int main(void) {
  int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int(), n = 0;
  for (int i = 0; i < 4 && !(a == i); i++) {
    if ((a > 2 && b < 5) || g(b)) n++;
    switch (b % 3) { case 0: n += 2; break; case 1: n--; break; default: break; }
  }
  return n;
}"""


def _load(tmp_path, name, text):
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    return load_program(str(path))


def _prepared(program):
    return assertions_as_branches(copy_program(program), KINDS)


def _explorer(program, split=False) -> PathExplorer:
    return PathExplorer(SymbolicSemantics(program, SemanticsOptions(), PathTarget()),
                        PathOptions(split_conditions=split))


def test_sample_sizes_are_those_of_equation_1():
    assert [batches_needed(i, 0.1, 0.9) for i in range(1, 6)] == [30, 37, 44, 51, 58]
    assert batches_needed(1, 0.05, 0.99) == 106  # ceil((ln 100 + ln 2) / 0.05)
    with pytest.raises(ValueError):
        batches_needed(0, 0.1, 0.9)


@pytest.mark.parametrize("split", [False, True])
def test_interpreter_vectors_are_members_of_the_path_strategy(tmp_path, split):
    """The decision alphabet the sampler reads from a concrete run and the letters the
    path strategy makes agree: every run's vector (and each prefix) is a member; one
    letter per source condition unless conditions are split."""
    program = _prepared(_load(tmp_path, "conds", CONDITIONS))
    alphabet = DecisionAlphabet.of(program, split)
    ex = _explorer(program, split)
    it = Interpreter(program, InterpOptions(record_decisions=True, checks=KINDS))
    rng = random.Random(3)
    lengths = []
    for _ in range(30):
        vals = [rng.choice([0, 1, 2, 3, 4, 5, -4, 7, rng.randint(-20, 20)]) for _ in range(2)]
        run = it.run(InputSource(vals, seed=1))
        vec = alphabet.vector(run.decisions)
        lengths.append(len(vec))
        for k in (len(vec), len(vec) // 2):
            assert ex.follow(vec[:k]).status == "word", (vals, vec[:k])
        # One letter flipped at the end: a member only if some input makes it.
        if vec:
            flipped = vec[:-1] + (not vec[-1],)
            if ex.follow(flipped).status == "word":
                model = ex.model()
                assert model is not None
    # `(a > 2 && b < 5) || g(b)` with a = 5, b = 9 takes three branches (a > 2, b < 5,
    # then g's result) for one letter; split, each branch is a letter.
    run = it.run(InputSource([5, 9], seed=1))
    grouped = DecisionAlphabet.of(program, False).vector(run.decisions)
    branches = DecisionAlphabet.of(program, True).vector(run.decisions)
    assert len(branches) - len(grouped) >= 4 * 2  # 4 iterations, two extra branches each


@pytest.mark.parametrize("text", [CONDITIONS, SAFE_RECURSIVE, BUG_LOOP])
def test_values_carried_as_terms_answer_as_named_values_do(tmp_path, text):
    """PAC's paths carry small values as terms (``name_values`` off), not as SSA
    constants defined equal to them: every word up to 8 decisions gets the same
    answer either way."""
    program = _prepared(_load(tmp_path, "p", text))
    named = _explorer(program)
    terms = PathExplorer(SymbolicSemantics(program, SemanticsOptions(name_values=False), PathTarget()),
                         PathOptions(split_conditions=False))
    statuses = []
    for n in range(9):
        for w in itertools.product((False, True), repeat=n):
            a, b = named.follow(w), terms.follow(w)
            assert a.status == b.status, (w, a.status, b.status)
            statuses.append(a.status)
    assert {"word", "infeasible"} <= set(statuses)
    assert sum(len(n.constraints) for n in terms.target.nodes) < sum(len(n.constraints) for n in named.target.nodes)


def _brute_force_errors(ra: RecursiveAutomaton, n: int, depth: int = 12) -> set[tuple[str, ...]]:
    """Words of length <= n with a prefix reaching an error (explicit configurations)."""
    found: set[tuple[str, ...]] = set()
    start = (ra.entry[ra.main], (), ())
    seen = {start}
    todo = [start]
    while todo:
        node, stack, word = todo.pop()
        if node in ra.errors:
            for m in range(n - len(word) + 1):
                for rest in itertools.product("01", repeat=m):
                    found.add(word + rest)
            continue
        nxt = []
        if node in ra.exits and stack:
            nxt.append((stack[-1], stack[:-1], word))
        for kind, data, m in ra.out(node):
            if kind == "lambda":
                nxt.append((m, stack, word))
            elif kind == "letter" and len(word) < n:
                nxt.append((m, stack, word + (data,)))
            elif kind == "call" and len(stack) < depth:
                nxt.append((ra.entry[data], stack + (m,), word))
        for c in nxt:
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return found


def test_pushdown_error_automaton_against_explicit_configurations(tmp_path):
    program = _prepared(_load(tmp_path, "rec", SAFE_RECURSIVE.replace("r != x", "r == 3")))
    ra = error_automaton(program, KINDS)
    n = 9
    brute = _brute_force_errors(ra, n)
    words = [w for m in range(n + 1) for w in itertools.product("01", repeat=m)]
    assert {w for w in words if accepts(ra, w)} == brute
    assert brute  # the error is reachable in the CFG
    # With random DFAs: the shortest word of L(H) ∩ L(B_P), if any, is a shortest one.
    rng = random.Random(5)
    for _ in range(40):
        q = rng.randint(1, 5)
        trans = {(s, a): rng.randrange(q) for s in range(q) for a in "01"}
        h = DFA(("0", "1"), q, 0, frozenset(s for s in range(q) if rng.random() < 0.5), trans)
        inter = [w for w in words if h.accepts(w) and w in brute]
        got = shortest_error_word(ra, h)
        if got is None:
            assert not inter
            continue
        w = got[0] + got[1]
        assert h.accepts(w) and accepts(ra, w)
        if inter:
            assert len(w) <= min(map(len, inter))
        if over_approximation_empty(ra, h):
            pytest.fail("B_O must contain L(B_P)")


def test_safe_recursive_program_is_pac_correct_and_its_language_is_exact(tmp_path):
    program = _load(tmp_path, "safe", SAFE_RECURSIVE)
    for learner in ("kv", "lsharp", "lstar", "rs", "lstar-col", "nlstar"):
        r = verify(program, PacOptions(learner=learner, timeout=120))
        assert r.verdict == "pac-correct", (learner, r.reason)
        assert r.pac.batches[-1] == batches_needed(r.pac.equivalence, 0.1, 0.9)
        # The guarantee, measured: fresh batches (numbers the run did not draw) of the
        # same distribution fall in the automaton; and it holds no error vector.
        prepared = _prepared(program)
        sampler = ConcolicSampler(prepared, DecisionAlphabet.of(prepared), lambda: _explorer(prepared), "rbs",
                                  k=10, seed=0)
        fresh = [sampler.batch(10_000 + i) for i in range(30)]
        inside = sum(all(r.automaton.accepts(tuple("1" if b else "0" for b in x.vector)) for x in batch)
                     for batch in fresh)
        assert inside >= 27, (learner, inside)
        assert shortest_error_word(error_automaton(prepared, KINDS), r.automaton) is None


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_sampled_vector_is_feasible_and_batches_are_reproducible(tmp_path, strategy):
    program = _prepared(_load(tmp_path, "conds", CONDITIONS))
    alphabet = DecisionAlphabet.of(program)

    def sampler():
        return ConcolicSampler(program, alphabet, lambda: _explorer(program), strategy, k=10, seed=11)
    s = sampler()
    b0, b1 = s.batch(0), s.batch(1)
    assert len(b0) == 10 and len(b1) == 10
    if strategy == "random-input":  # no solver: a batch is a function of its number alone
        assert [x.vector for x in sampler().batch(1)] == [x.vector for x in b1]
    ex = _explorer(program)
    for x in b0 + b1:
        assert ex.follow(x.vector).status == "word"
    if strategy != "random-input":
        assert len({x.vector for x in b0}) > 3  # flips reach other paths


@pytest.mark.parametrize("learner", ["kv", "lsharp"])
def test_bug_is_reported_with_a_replayed_witness_in_the_error_automaton(tmp_path, learner):
    program = _load(tmp_path, "bug", BUG_LOOP)
    r = verify(program, PacOptions(learner=learner, timeout=120))
    assert r.verdict == "bug", r.reason
    cex = r.counterexample
    assert cex.replay["status"] == "confirmed"
    prepared = _prepared(program)
    assert accepts(error_automaton(prepared, KINDS), tuple("1" if b else "0" for b in r.vector))
    run = Interpreter(prepared, InterpOptions(checks=KINDS)).run(InputSource(list(cex.input_values)))
    assert run.status == "violation" and run.violation.prop_id == cex.prop_id


def test_no_bug_when_the_error_is_unreachable_in_the_cfg_but_sampled_words_are_long(tmp_path):
    program = _load(tmp_path, "loop", HEAD + """
int main(void) {
  int n = __VERIFIER_nondet_int(), s = 0;
  if (n < 0 || n > 20) return 0;
  for (int i = 0; i < n; i++) s += 2;
  if (s % 2 != 0) __VERIFIER_error();
  return 0;
}""")
    r = verify(program, PacOptions(timeout=120))
    assert r.verdict in ("pac-correct", "unknown")  # never a bug: there is none
    assert r.counterexample is None


def test_cli_json_and_errors(tmp_path, capsys):
    path = tmp_path / "bug.c"
    path.write_text(BUG_LOOP)
    assert main(["pac", str(path), "--json", "--quiet", "--learner", "lsharp"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "bug" and doc["witness"]["replay"]["status"] == "confirmed"
    assert doc["witness"]["decision_vector"] and set(doc["witness"]["decision_vector"]) <= {"0", "1"}
    assert doc["delta"] == 0.9 and doc["error_probability"] == pytest.approx(0.1)
    assert doc["stats"]["membership_queries"] >= doc["stats"]["membership_by_solver"] > 0
    with pytest.raises(SystemExit) as e:
        main(["pac", str(path), "--delta", "1.5"])
    assert e.value.code == 2
    assert main(["pac", str(tmp_path / "missing.c")]) == 2
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return 0 }\n")
    assert main(["pac", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.c:1:" in err


RARE = HEAD + """
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) { assert(x < 1000000); }
  return 0;
}"""
NOTHING = DFA(("0", "1"), 1, 0, frozenset(), {(0, "0"): 0, (0, "1"): 0})  # refuted by every vector


def _rare_teacher(tmp_path, bug_search=0):
    """The teacher of a program whose failing runs are rare, with one passing and one
    failing sample of its random-input sampler (no bug search unless asked: it would
    find the bug on its own)."""
    from tracelearn.analyses.pac.driver import make_teacher

    program = _prepared(_load(tmp_path, "rare", RARE))
    teacher = make_teacher(program, KINDS, PacOptions(strategy="random-input", bug_search=bug_search), None)
    runs = teacher.sampler.stream(0)
    ok = next(s for s in runs if s.run.status == "ok")
    bad = next(s for s in runs if s.run.status == "violation")
    return teacher, ok, bad


def test_a_failing_run_anywhere_in_a_batch_is_the_bug_before_any_counterexample(tmp_path):
    """A batch whose first vector refutes the conjecture and whose second run fails:
    the failure is reported (the counterexample would have sent the learner on and the
    batch's failing run would never be looked at again)."""
    from tracelearn.analyses.pac.teacher import BugFound

    teacher, ok, bad = _rare_teacher(tmp_path)
    teacher.sampler.batch = lambda i: [ok, bad]  # type: ignore[method-assign]
    with pytest.raises(BugFound) as found:
        teacher.equivalent(NOTHING)
    assert found.value.found_by == "sampling"
    assert found.value.counterexample.replay["status"] == "confirmed"


def test_a_failing_run_in_a_later_batch_of_the_query_is_the_bug_before_an_earlier_counterexample(tmp_path):
    """An equivalence query draws its q batches before it looks for a counterexample:
    a failing run in batch 3 is reported though batch 1 refutes the conjecture; the
    batches left over are the next query's, by index (nothing drawn twice or skipped)."""
    from tracelearn.analyses.pac.teacher import BugFound

    teacher, ok, bad = _rare_teacher(tmp_path)
    asked: list[int] = []

    def batch(i):
        asked.append(i)
        return [bad] if i == 2 else [ok]
    teacher.sampler.batch = batch  # type: ignore[method-assign]
    with pytest.raises(BugFound) as found:
        teacher.equivalent(NOTHING)
    assert found.value.found_by == "sampling" and asked == [0, 1, 2]
    # without the failing run: the counterexample of batch 0, then the next query
    # goes on with batches 1.. (drawn already) and draws from where they end
    teacher, ok, _ = _rare_teacher(tmp_path)
    asked.clear()
    teacher.sampler.batch = lambda i: (asked.append(i), [ok])[1]  # type: ignore[method-assign]
    assert teacher.equivalent(NOTHING) is not None and asked == list(range(30))
    assert teacher.equivalent(NOTHING) is not None and asked == list(range(1 + 37)) and teacher.next_batch == 2


def test_the_bug_search_draws_a_batch_before_every_nth_of_the_samplers_and_its_failures_are_bugs(tmp_path):
    from tracelearn.analyses.pac.teacher import BugFound

    teacher, ok, bad = _rare_teacher(tmp_path, bug_search=4)
    searched: list[int] = []
    teacher.sampler.batch = lambda i: [ok]  # type: ignore[method-assign]
    teacher.search.batch_runs = lambda i: (searched.append(i), (s for s in [ok]))[1]  # type: ignore[method-assign]
    assert teacher.equivalent(NOTHING) is not None
    assert searched == list(range(8)) and teacher.stats.search_batches == 8  # before batches 0, 4, ..., 28 of 30
    made: list[Sample] = []

    def runs(i):  # the search's runs are made one at a time: none after the failing one
        for s in [ok, bad, ok]:
            made.append(s)
            yield s
    teacher.search.batch_runs = runs  # type: ignore[method-assign]
    with pytest.raises(BugFound) as found:
        teacher.equivalent(NOTHING)  # 37 batches: 29 left over, 8 drawn, a search before the 33rd (index 32)
    assert found.value.found_by == "bug search" and found.value.counterexample.replay["status"] == "confirmed"
    assert made == [ok, bad]


def test_an_alarm_on_the_way_out_of_the_time_limit_keeps_the_finished_verdict(tmp_path, monkeypatch):
    """The time limit's alarm can land in z3's code as the work ends and be raised at
    the next line of ours: the last line of the guarded block. The verdict stands (it
    used to escape ``pac_file`` as an exception, losing the result)."""
    import importlib
    from contextlib import contextmanager

    from tracelearn.api.deadline import CommandTimeout

    api = importlib.import_module("tracelearn.api.pac_verification")

    @contextmanager
    def late_alarm(seconds):
        yield
        raise CommandTimeout

    monkeypatch.setattr(api, "watchdog", late_alarm)
    path = tmp_path / "bug.c"
    path.write_text(BUG_LOOP)
    run = api.pac_file(str(path), timeout=60)
    assert run.doc["verdict"] == "bug" and run.doc["witness"]["replay"]["status"] == "confirmed"


def test_json_reader_gets_a_document_when_the_input_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return 0 }\n")
    assert main(["pac", str(bad), "--json"]) == 2
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert doc["command"] == "pac" and doc["error"]["kind"] == "ParseError"
    assert doc["error"]["where"].startswith(str(bad) + ":1:")
    assert "bad.c:1:" in out.err


def test_a_sampled_counterexample_is_the_shortest_prefix_the_conjecture_rejects(tmp_path):
    """Every prefix of a sampled vector is feasible: the counterexample is the shortest
    prefix of a sampled vector that the conjecture rejects, over the batch; it is a
    member (the solver agrees), and its prefixes are known members without the solver."""
    from tracelearn.analyses.pac.driver import make_teacher
    from tracelearn.analyses.pac.teacher import vector_of

    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    teacher = make_teacher(program, KINDS, PacOptions(), None)
    batch = teacher.sampler.batch(0)
    teacher.sampler.batch = lambda i: batch  # type: ignore[method-assign]
    # a conjecture that accepts the words of at most 2 letters (no error vector)
    short = DFA(("0", "1"), 4, 0, frozenset(range(3)), {(q, a): min(q + 1, 3) for q in range(4) for a in "01"})
    ce = teacher.equivalent(short)
    assert ce is not None and len(ce) == 3 < max(len(s.vector) for s in batch)
    assert teacher.stats.sample_counterexamples == 1
    assert any(tuple(s.vector[:3]) == vector_of(ce) for s in batch)
    assert _explorer(program).follow(vector_of(ce)).status == "word"
    asked = teacher.stats.membership_solver
    assert teacher.member(ce[:2]) and teacher.stats.membership_solver == asked


def test_a_no_comes_with_the_shortest_infeasible_prefix(tmp_path):
    """decision(P) is prefix-closed: the teacher finds the shortest infeasible prefix of
    a non-member by a binary search over its prefixes (x <= 5: the recursion's n <= 0
    is false at most 5 times after main's first decision), and the learner answers
    every extension of it with no query."""
    from tracelearn.analyses.pac.driver import make_teacher
    from tracelearn.analyses.pac.teacher import vector_of
    from tracelearn.learning import QueryLayer

    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    teacher = make_teacher(program, KINDS, PacOptions(), None)
    word = ("0",) * 12
    assert not teacher.member(word)
    dead = teacher.shortest_non_member_prefix(word)
    assert dead == ("0",) * 7 and teacher.stats.prefix_probes <= 4
    fresh = _explorer(program)
    assert fresh.follow(vector_of(dead)).status != "word"
    assert fresh.follow(vector_of(dead[:-1])).status == "word"
    q = QueryLayer(make_teacher(program, KINDS, PacOptions(), None))
    assert not q.member(word)
    assert not q.member(("0",) * 9) and not q.member(("0",) * 7 + ("1",))
    assert q.stats.by_teacher == 1 and q.stats.by_deduction == 2


def test_a_conjecture_refuted_by_a_vector_an_earlier_query_drew_poses_no_query(tmp_path):
    """The vectors of the batches a query has used refute later conjectures without a
    query (and without a fresh batch); the batches the query did not use stay fresh for
    the next one, and only queries that sample count for q_i."""
    from tracelearn.analyses.pac.driver import make_teacher
    from tracelearn.analyses.pac.teacher import word_of
    from tracelearn.learning.queries import QueryLayer

    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    teacher = make_teacher(program, KINDS, PacOptions(bug_search=0), None)
    layer = QueryLayer(teacher)
    vectors = [word_of(s.vector) for s in teacher.sampler.batch(0)]
    longest = max(vectors, key=len)
    assert len(longest) >= 4

    def first(n: int) -> DFA:  # accepts the words of at most n letters
        return DFA(("0", "1"), n + 2, 0, frozenset(range(n + 1)),
                   {(q, a): min(q + 1, n + 1) for q in range(n + 2) for a in "01"})
    ce = layer.equivalent(first(1))
    assert ce is not None and len(ce) == 2 and teacher.next_batch == 1
    ce2 = layer.equivalent(first(2))  # batch 0 holds a longer vector: no query, no batch
    assert ce2 is not None and len(ce2) == 3 and any(v[:3] == ce2 for v in vectors)
    assert (layer.stats.equivalence, layer.stats.equivalence_by_memory) == (1, 1)
    assert teacher.stats.equivalence == 1 and teacher.next_batch == 1
    layer.equivalent(first(len(longest)))  # every seen vector fits it: it is posed
    assert (layer.stats.equivalence, layer.stats.equivalence_by_memory) == (2, 1)


def test_a_vector_in_at_most_epsilon_of_the_used_batches_refutes_nothing_without_a_query(tmp_path):
    from tracelearn.analyses.pac.driver import make_teacher

    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    teacher = make_teacher(program, KINDS, PacOptions(epsilon=0.1, bug_search=0), None)
    common, rare, other = ("0", "1"), ("1", "1", "0", "1", "0"), ("1", "0", "0")
    teacher._seen = {common: 0, rare: 1, other: 2}
    teacher._seen_batches = [(0,)] * 16 + [(0, 1)] + [(0, 2)] * 3  # 20 used batches

    def rejecting(word):  # accepts every word but the extensions of ``word``'s prefix of 3
        cut = word[:3]
        return DFA.from_words(("0", "1"), [w for w in _all_words(5) if w[:3] != cut])
    assert teacher.known_counterexample(rejecting(rare)) is None  # 1 batch of 20: posed
    assert teacher.known_counterexample(rejecting(other)) == other  # 2 of 20 > epsilon: refuted


def _all_words(n):
    import itertools
    return [tuple(w) for k in range(n + 1) for w in itertools.product("01", repeat=k)]


EUCLID = HEAD + """
int gcd(int a, int b) {
  if (a <= 0 || b <= 0) { ERROR: __VERIFIER_error(); }
  if (a == b) return a;
  if (a > b) return gcd(a - b, b);
  return gcd(a, b - a);
}
int main(void) {
  int m = __VERIFIER_nondet_int(), n = __VERIFIER_nondet_int();
  if (m <= 0 || n <= 0) return 0;
  return gcd(m, n);
}"""


def test_the_bug_search_takes_integer_refutations_where_nothing_can_wrap_as_final(tmp_path):
    """Euclid's subtractions never wrap on positive values: flips the integers refute
    are settled with no bit-vector question, and the bit vectors, asked with no budget,
    agree that every flip the search did not make is infeasible."""
    from tracelearn.analyses.pac.driver import make_teacher

    program = _prepared(_load(tmp_path, "euclid", EUCLID))
    teacher = make_teacher(program, KINDS, PacOptions(max_decisions=40), None)  # short paths: a quick test
    assert teacher.search is not None
    samples = [s for i in range(3) for s in teacher.search.batch(i)]
    assert teacher.search.stats.refutations_final_over_integers > 0
    explorer = _explorer(program)
    assert all(explorer.follow(s.vector).status == "word" for s in samples)
    assert teacher.search.infeasible
    assert all(explorer.follow(flip).status != "word" for flip in teacher.search.infeasible)


def test_flips_found_infeasible_are_not_asked_again_and_are_infeasible(tmp_path):
    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    sampler = ConcolicSampler(program, DecisionAlphabet.of(program), lambda: _explorer(program), "rbs", k=10, seed=3)
    for i in range(6):
        sampler.batch(i)
    assert sampler.infeasible and sampler.stats.flips_known_infeasible > 0
    ex = _explorer(program)
    assert all(ex.follow(w).status in ("infeasible", "exit") for w in sampler.infeasible)


TWO_INPUTS = HEAD + """
int f(int n) { if (n <= 0) return 0; return f(n - 1) + 1; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 9) return 0;
  int r = f(x);
  int y = __VERIFIER_nondet_int();
  if (y > 3) r++;
  if (r != x && y < 0) { ERROR: __VERIFIER_error(); }
  return r;
}"""


@pytest.mark.parametrize("text, prunes", [(SAFE_RECURSIVE, True), (TWO_INPUTS, False)])
def test_no_flip_is_left_out_that_the_solver_could_make(tmp_path, monkeypatch, text, prunes):
    """The sampler leaves out the positions after the prefix that fixes every input of
    a run (sparing only the solver's refutations): each position left out is an
    infeasible flip. f's recursion fixes x; an input read later (``y``) is never
    fixed, and nothing is left out."""
    import tracelearn.semantics.strategies.concolic as concolic

    monkeypatch.setattr(concolic, "FIXED_MIN", 0)
    monkeypatch.setattr(concolic, "FIXED_AFTER", 0)
    program = _prepared(_load(tmp_path, "p", text))
    sampler = ConcolicSampler(program, DecisionAlphabet.of(program), lambda: _explorer(program), "rbs", k=10, seed=5)
    vectors = {s.vector for i in range(4) for s in sampler.batch(i)}
    ex = _explorer(program)
    for v in vectors:
        p = sampler._fixed_from(sampler._ex, v)
        for j in range(p, len(v)):
            assert ex.follow(v[:j] + (not v[j],)).status != "word", (v, j, p)
    assert (sampler.stats.flips_past_fixed_inputs > 0) == prunes


def test_the_trie_of_infeasible_prefixes_starting_afresh_changes_no_answer(tmp_path, monkeypatch):
    import tracelearn.semantics.strategies.path as path

    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    words = [w for n in range(7) for w in itertools.product((False, True), repeat=n)]
    want = [_explorer(program).follow(w).status for w in words]
    monkeypatch.setattr(path, "MAX_DEAD_NODES", 3)
    ex = _explorer(program)
    assert [ex.follow(w).status for w in words] == want
    assert "infeasible" in want and ex._dead_nodes <= 3 + 6


LATE = HEAD + """
int main(void) {
  int s = 0;
  for (int i = 0; i < 10; i++) { if (i % 2) s++; }
  assert(s != 5);
  return 0;
}"""


def test_a_run_failing_past_the_decision_bound_is_a_bug(tmp_path):
    """A sampled run that fails after more than ``--max-decisions`` decisions keeps its
    whole vector: the bug is confirmed on it (a prefix cut at the bound is in no error
    vector, and the verdict would have been unknown)."""
    from tracelearn.analyses.pac.driver import make_teacher
    from tracelearn.analyses.pac.teacher import BugFound

    program = _prepared(_load(tmp_path, "late", LATE))
    # (no bug search: it would find the failure first, before the sampler's batch)
    teacher = make_teacher(program, KINDS, PacOptions(max_decisions=5, strategy="random-input", bug_search=0), None)
    batch = teacher.sampler.batch(0)
    assert batch[0].run.status == "violation" and len(batch[0].vector) > 5
    teacher.sampler.batch = lambda i: batch  # type: ignore[method-assign]
    with pytest.raises(BugFound) as found:
        teacher.equivalent(NOTHING)
    assert found.value.found_by == "sampling" and found.value.counterexample.replay["status"] == "confirmed"


LATE_INPUT = HEAD + """
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 7) x = 0;
  int y = __VERIFIER_nondet_int();  /* read after the first decision */
  if (y == 3) return 1;
  return 0;
}"""


def test_a_tester_starts_on_zero_inputs_and_a_flip_keeps_what_its_solution_leaves_out(tmp_path):
    # CREST's testers: new inputs are 0; flipping x == 7 solves for x alone (y is read
    # after it), so y keeps the last run's value, and only a flip of y == 3 changes y.
    program = _prepared(_load(tmp_path, "late", LATE_INPUT))
    alphabet = DecisionAlphabet.of(program)
    kept = 0
    for strategy in ("rbs", "cds", "dfs"):
        sampler = ConcolicSampler(program, alphabet, lambda: _explorer(program), strategy, k=10, seed=4)
        for i in range(5):
            batch = sampler.batch(i)
            assert batch[0].inputs == [0, 0] and batch[0].vector == (False, False)
            if strategy == "dfs":
                continue  # its next run may flip an earlier run's decision, not the last one's
            # every flip is feasible here: each run flips one decision of the one before
            for prev, cur in zip(batch, batch[1:]):
                if cur.vector[0] != prev.vector[0]:  # x == 7 flipped: y is kept
                    assert cur.inputs[1] == prev.inputs[1], (strategy, i, prev, cur)
                    kept += prev.inputs[1] == 3  # a value the solver chose, not a zero
    assert kept > 0
    # Uniform starts draw afresh: the first runs of batches differ, and y is rarely 3
    sampler = ConcolicSampler(program, alphabet, lambda: _explorer(program), "rbs", k=10, seed=4, start="uniform")
    firsts = [tuple(sampler.batch(i)[0].inputs) for i in range(5)]
    assert len(set(firsts)) == 5
    with pytest.raises(ValueError, match="start"):
        ConcolicSampler(program, alphabet, lambda: _explorer(program), "rbs", start="ones")


def test_the_start_of_the_inputs_is_an_option_and_is_in_the_document(tmp_path, capsys):
    path = tmp_path / "late.c"
    path.write_text(LATE_INPUT)
    for start in ("zero", "uniform"):
        assert main(["pac", str(path), "--json", "--quiet", "--start", start]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["verdict"] == "pac-correct" and doc["distribution"]["start"] == start
    assert main(["pac", str(path), "--json", "--quiet", "--strategy", "random-input", "--start", "zero"]) == 0
    assert json.loads(capsys.readouterr().out)["distribution"]["start"] == "uniform"
    with pytest.raises(SystemExit) as e:
        main(["pac", str(path), "--start", "ones"])
    assert e.value.code == 2


MISMATCH = HEAD + """
extern double __VERIFIER_nondet_double(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 7) {  /* past this decision the second read is a double, or an int */
    double d = __VERIFIER_nondet_double();
    if (d > 0.25 && d < 0.75) return 2;
    return 1;
  }
  int y = __VERIFIER_nondet_int();
  if (y == 3) return 3;
  return 0;
}"""


def test_a_kept_value_that_does_not_fit_the_new_read_is_drawn_afresh(tmp_path, capsys):
    # Flipping x == 7 after a run that drew d = 0.5 reads an int where the double was:
    # the run failed ("input #2 (0.5) does not fit int"); now that input starts at zero
    path = tmp_path / "mismatch.c"
    path.write_text(MISMATCH)
    for strategy in ("rbs", "cds"):
        assert main(["pac", str(path), "--json", "--quiet", "--strategy", strategy]) == 0, capsys.readouterr().err
        doc = json.loads(capsys.readouterr().out)
        assert doc["verdict"] == "pac-correct"
    loc = SourceLoc("f.c", 1, 1)
    int32 = IntType(32, True)
    src = InputSource([7], strategy="zero", hints=[0.5, 300, 4, 9])
    assert src.next(int32, "x", loc) == 7  # a given value
    assert src.next(int32, "y", loc) == 0  # the hint 0.5 is no int: zero
    assert src.next_in_range(int32, -1, 255, "c", loc) == 0  # 300 is out of getchar's range
    assert src.next(int32, "z", loc) == 4
    assert src.next_in_range(int32, -1, 255, "c", loc) == 9
    assert src.next(int32, "w", loc) == 0  # no hints left


def test_positions_by_branch_give_each_branch_an_even_chance_to_come_first():
    ids = ["rec"] * 99 + ["check"]  # a recursion's 99 decisions, then one check after it
    firsts = []
    for seed in range(400):
        order = by_branch_order(ids, random.Random(seed))
        assert sorted(order) == list(range(100))
        firsts.append(ids[order[0]])
    # 1/2 for each branch (uniform over positions: 1/100 for the check)
    assert 140 <= firsts.count("check") <= 260


DEEP_BUG = HEAD + """
int depth(int n) { if (n <= 0) return 0; return depth(n - 1) + 1; }
int main(void) {
  int n = __VERIFIER_nondet_int(), m = __VERIFIER_nondet_int();
  int d = depth(n);
  if (d >= 50 && m > 100) { ERROR: __VERIFIER_error(); }
  return 0;
}"""


def test_a_bug_behind_a_deep_recursion_is_found_by_the_bug_search_and_replays(tmp_path):
    # The sampler's first solutions grow n one level per flip: 50 levels are never
    # reached within a batch of 10, and without the search the program is pac-correct
    # (the guarantee is about that distribution: it holds, and says nothing of this bug)
    program = _load(tmp_path, "deep", DEEP_BUG)
    for seed in range(3):
        r = verify(program, PacOptions(timeout=120, seed=seed))
        assert r.verdict == "bug" and r.found_by == "bug search", (seed, r.reason)
        assert r.counterexample.replay["status"] == "confirmed"
        run = Interpreter(_prepared(program), InterpOptions(checks=KINDS)).run(
            InputSource(list(r.counterexample.input_values)))
        assert run.status == "violation"
        # whole batches before the last, which stops at its failing run
        b = r.pac.search_batches
        assert b >= 1 and 10 * (b - 1) < r.search.samples <= 10 * b
    off = verify(program, PacOptions(timeout=120, bug_search=0))
    assert off.verdict != "bug" and off.pac.search_batches == 0 and off.search.samples == 0


FIB_CHECK = HEAD + """
int fib(int n) {
  if (n < 1) return 0;
  else if (n == 1) return 1;
  return fib(n - 1) + fib(n - 2);
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int r = fib(x);
  if (x != 5 || r == 3) return 0;
  ERROR: __VERIFIER_error();
}"""


def test_the_flips_heading_for_the_error_are_the_check_after_the_recursion(tmp_path):
    """The check's outcome 1 returns, 0 goes on to the error: flipping a 1 there heads
    for it. Both outcomes of the recursion's branches come back to that check alike, so
    none of them is preferred (returning to the caller does not count)."""
    from tracelearn.analyses.pac.error_automaton import error_automaton, flips_toward_error
    from tracelearn.automata.pushdown import letters_to_error

    program = _prepared(_load(tmp_path, "fib", FIB_CHECK))
    ra = error_automaton(program, KINDS)
    toward = flips_toward_error(program, ra)
    lines = {(int(did.split(":")[-2]), made) for did, made in toward}
    assert lines == {(13, True)}  # x != 5 and r == 3: both sub-conditions of the check, made 1
    assert len(toward) == 2
    dist = letters_to_error(ra)
    assert all(dist[e] == 0 for e in ra.errors)
    assert ra.entry["fib"] not in dist  # the error is in main: fib reaches it only by returning
    assert decision_constants(program) == (1, 3, 5)


def test_the_bug_search_aims_at_the_programs_constants_and_the_check_first(tmp_path):
    """fib(x) for x = 5 exactly: the search's flips at the check and its aims at the
    constants it compares with find x = 5 within a few batches (7, 2, 4 here); the same
    search with neither draws 10 batches without it for seed 0."""
    from tracelearn.analyses.pac.driver import make_teacher

    program = _prepared(_load(tmp_path, "fib", FIB_CHECK))

    def first_failing(seed: int, plain: bool) -> int | None:
        search = make_teacher(program, KINDS, PacOptions(seed=seed), None).search
        assert search is not None and search.toward and search.aim_points == (1, 3, 5)
        if plain:
            search.toward, search.aim_points = frozenset(), ()
        for i in range(10):
            if any(s.run.status == "violation" for s in search.batch(i)):
                assert search.stats.flips_toward > 0 or plain
                return i + 1
        return None

    found = [first_failing(seed, False) for seed in range(3)]
    assert None not in found, found
    assert first_failing(0, True) is None


def test_a_flip_asked_again_gets_its_first_solution_and_a_run_made_before_is_that_run(tmp_path):
    """The sampler remembers each feasible flip's inputs and, from zero inputs, each
    run: on a recursion the batches come back to the same flips. Every sample, made or
    remembered, is what the interpreter gives on its inputs, and the first-solution
    inputs of a flip make a run that takes the flipped decision."""
    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    alphabet = DecisionAlphabet.of(program)
    sampler = ConcolicSampler(program, alphabet, lambda: _explorer(program), "rbs", k=10, seed=3)
    samples = [s for i in range(6) for s in sampler.batch(i)]
    st = sampler.stats
    assert st.flips_remembered > 0 and st.runs_remembered > 0
    assert st.runs + st.runs_remembered == st.samples == 60
    fresh = ConcolicSampler(program, alphabet, lambda: _explorer(program), "rbs", k=10, seed=99)
    for s in samples:
        again = fresh.run(s.inputs, random.Random(0))
        assert again.vector == s.vector
    for flipped, values in sampler.solved.items():
        made = fresh.run(values, random.Random(0))
        assert made.vector[:len(flipped)] == flipped


def test_a_remembered_run_is_never_one_of_other_inputs_python_calls_equal(tmp_path):
    """-0.0 == 0.0 in Python, not in C (1 / x): the run made on one is not the other's."""
    program = _prepared(_load(tmp_path, "neg_zero", HEAD + """
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (1.0 / x < 0) return 1;
  return 0;
}"""))
    sampler = ConcolicSampler(program, DecisionAlphabet.of(program), lambda: _explorer(program), "rbs", k=2, seed=1)
    plus, minus = sampler.run([0.0], random.Random(0)), sampler.run([-0.0], random.Random(0))
    assert plus.vector != minus.vector and sampler.stats.runs_remembered == 0
    assert sampler.run([-0.0], random.Random(0)) is minus and sampler.stats.runs_remembered == 1


def test_the_remembered_runs_are_bounded_by_the_decisions_they_hold(tmp_path, monkeypatch):
    import tracelearn.semantics.strategies.concolic as concolic

    monkeypatch.setattr(concolic, "MAX_KEPT_DECISIONS", 12)
    program = _prepared(_load(tmp_path, "safe", SAFE_RECURSIVE))
    sampler = ConcolicSampler(program, DecisionAlphabet.of(program), lambda: _explorer(program), "rbs", k=10, seed=3)
    for i in range(4):
        sampler.batch(i)
        held = sum(len(s.run.decisions) for s in sampler.made.values())
        assert held == sampler._made_decisions and (held <= 12 or len(sampler.made) == 1)


def test_html_report_and_json_give_each_letter_of_the_bugs_vector_at_its_source_condition(tmp_path, capsys):
    """BUG_LOOP fails only when all three iterations count (x > i && y == 7) and x >= 100:
    its vector is the loop's condition and the counted one, three times, the loop's exit
    and the failed assertion, whatever inputs the witness has."""
    path = tmp_path / "bug.c"
    path.write_text(BUG_LOOP)
    page = tmp_path / "bug.html"
    assert main(["pac", str(path), "--json", "--quiet", "--html", str(page)]) == 0
    doc = json.loads(capsys.readouterr().out)
    w = doc["witness"]
    line8 = BUG_LOOP.splitlines()[7]
    loop, counted = f"{path}:8:{line8.index('i < 3') + 1}", f"{path}:8:{line8.index('y == 7') + 1}"
    assert w["decision_sites"][:-1] == [loop, counted] * 3 + [loop]
    assert w["decision_sites"][-1].startswith(f"{path}:9:") and w["decision_vector"] == "11111100"
    assert set(w["decision_sites"]) <= set(doc["decisions"]["ids"])
    text = page.read_text()
    assert "PAC verification of" in text and ": BUG</h1>" in text and "confirmed" in text
    assert text.count("<tr><td>7</td><td>0</td>") == 1  # the last letter's row: the failed assertion
    assert "<span id='L9' class='hl'>" in text  # the assertion's line marked as a decision


def test_html_report_of_a_pac_correct_program_draws_its_automaton(tmp_path, capsys):
    path = tmp_path / "safe.c"
    path.write_text(SAFE_RECURSIVE)
    page = tmp_path / "safe.html"
    assert main(["pac", str(path), "--json", "--quiet", "--html", str(page)]) == 0
    doc = json.loads(capsys.readouterr().out)
    text = page.read_text()
    assert doc["verdict"] == "pac-correct" and ": PAC-CORRECT</h1>" in text
    assert f"feasible decision vectors: {doc['automaton_states']} states" in text and "<svg" in text
    assert "confidence delta = 0.9" in text and "error probability 0.1" in text
    assert main(["pac", str(path), "--quiet", "--html", str(path)]) == 2  # never over the input
    assert path.read_text() == SAFE_RECURSIVE
