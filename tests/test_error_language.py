"""The language of error (Chapman, Chockler, Kesseli, Kroening, Strichman, Tautschnig):
the paper's own examples are the spec; every witness replays in the interpreter."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import C_DIR, EXAMPLES
from tracelearn.analyses.error_language.alphabet import AlphabetSpec, instrument
from tracelearn.analyses.error_language.cfg_oracle import CFGOracle
from tracelearn.analyses.error_language.driver import ExplainOptions, explain_program
from tracelearn.analyses.error_language.teacher import ErrorTeacher
from tracelearn.automata.dfa import DFA
from tracelearn.frontend.lower import load_program
from tracelearn.semantics.inputs import InputSource
from tracelearn.semantics.interpreter import Interpreter, InterpOptions

FIG2 = str(EXAMPLES / "fig2.c")


def fig5c() -> DFA:
    """Fig. 5c: g loops on the initial state; f then assert."""
    return DFA(("g", "f", "assert"), 3, 0, frozenset({2}), {(0, "g"): 0, (0, "f"): 1, (1, "assert"): 2})


def learned(path: str, **kw):
    return explain_program(load_program(path), ExplainOptions(**kw))


@pytest.mark.parametrize("learner", ["lstar", "kv", "lsharp"])
@pytest.mark.parametrize("lazy", [False, True])
def test_fig2_gives_fig5c(learner, lazy):
    r = learned(FIG2, bound=4, bwl=4, learner=learner, lazy=lazy)
    assert r.automaton.equivalent(fig5c())
    assert r.automaton.num_states == 3
    assert set(r.dominating) == {"f", "assert"}


def test_fig2_is_learned_in_two_conjectures_by_lstar():
    """Sec. 4: the accepted automaton is the learner's second conjecture (the first
    being one non-accepting state); our L* poses one more, as it checks it."""
    r = learned(FIG2, bound=4, bwl=4, learner="lstar", lazy=False)
    assert r.query_stats.equivalence <= 3


def test_fig10_gives_the_same_automaton():
    r = learned(str(C_DIR / "fig10.c"), bound=4, bwl=4)
    assert r.automaton.equivalent(fig5c())


def test_fig8_instrumented_program():
    r = learned(str(C_DIR / "fig8.c"))
    assert r.automaton.words(6) == [("F", "F", "G", "H", "assert")]
    assert r.converged


def test_membership_answers_are_exact():
    inst = instrument(load_program(FIG2), AlphabetSpec())
    t = ErrorTeacher(inst, 4, 4, CFGOracle(inst.program, inst.targets))
    assert t.member(("f", "assert"))
    assert t.member(("g", "g", "f", "assert"))
    assert not t.member(("g", "assert"))  # not CFG compatible
    assert not t.member(("f",))  # does not end with the assertion
    assert not t.member(("g",) * 5 + ("f", "assert"))  # longer than bwl
    assert t.stats.solver_members >= 2


def test_accepted_word_check_is_cut_visibly():
    """Condition (6) enumerates the conjecture's accepted words: on a conjecture with
    too many of them the check stops, and says so instead of claiming them verified."""
    inst = instrument(load_program(FIG2), AlphabetSpec())
    t = ErrorTeacher(inst, 4, 4, CFGOracle(inst.program, inst.targets))
    # (g|f)* assert: accepts words like `assert` and `g f f assert` that are no failing runs.
    loose = DFA(("g", "f", "assert"), 2, 0, frozenset({1}), {(0, "g"): 0, (0, "f"): 0, (0, "assert"): 1})
    assert t._spurious_word(loose) == ("assert",)
    assert not t.spurious_incomplete
    assert t._spurious_word(fig5c()) is None  # every accepted word of <= 4 letters is a failing run
    assert not t.spurious_incomplete and t.stats.accepted_check_cut == 0
    assert t._spurious_word(fig5c(), budget=1) is None  # `f assert` checked, `g f assert` not
    assert t.spurious_incomplete and t.stats.accepted_check_cut == 1


def test_cfg_precheck_is_sound():
    """A word the pre-check rejects is never a member (checked by the solver)."""
    inst = instrument(load_program(str(C_DIR / "fig8.c")), AlphabetSpec())
    cfg = CFGOracle(inst.program, inst.targets)
    t = ErrorTeacher(inst, 1, 5, cfg)  # words of up to 4 events and the assert letter
    import itertools

    for n in range(0, 5):
        for w in itertools.product(("F", "G", "H"), repeat=n):
            word = w + ("assert",)
            if not cfg.compatible(w):
                events = list(w)

                r, _ = t._solve([t.member_mode, t.fail_goal, t._llit(len(events))] +
                                [t._wlit(k, t.ids[a]) for k, a in enumerate(events)])
                assert r == "unsat", word


RECURSIVE = """
extern int nondet_int(void);
void _Learn_assert(int);
void g(int n);
void h(void) { if (nondet_int()) _Learn_assert(0); }
void f(int n) { if (n > 0) { g(n - 1); f(n - 1); } else h(); }
void g(int n) { if (nondet_int()) f(n); h(); }
int main(void) { int n = nondet_int(); while (nondet_int()) g(n); f(n); h(); return 0; }
"""


def test_cfg_summaries_kept_across_words_give_each_words_answer(tmp_path):
    """The pre-check keeps each call's summary for the events from the call on, and
    reuses it in other words with the same suffix: the answers are those of an oracle
    that sees each word alone (mutual recursion, words in a random order)."""
    import itertools
    import random

    src = tmp_path / "rec.c"
    src.write_text(RECURSIVE)
    inst = instrument(load_program(str(src)), AlphabetSpec())
    shared = CFGOracle(inst.program, inst.targets)
    words = [w for n in range(7) for w in itertools.product(("f", "g", "h"), repeat=n)]
    random.Random(3).shuffle(words)
    answers = {w: shared.compatible(w) for w in words}
    for w in words:
        assert CFGOracle(inst.program, inst.targets).compatible(w) == answers[w], w
    assert 0 < sum(answers.values()) < len(words)
    assert shared.kept  # (kept, and so reused by the later words)


def test_witnesses_replay_in_the_interpreter():
    r = learned(FIG2, bound=4, bwl=4)
    assert r.witnesses
    it = Interpreter(r.inst.program, InterpOptions())
    for word, inputs in r.witnesses.items():
        run = it.run(InputSource(list(inputs)))
        assert run.status == "violation" and run.violation.prop_id in r.inst.targets
        assert tuple(e for e, _ in run.events) + ("assert",) == word
    assert {e.letter for e in r.edge_witnesses} == {"g", "f", "assert"}


def test_merge_check_figs_12_to_14():
    from tracelearn.analyses.error_language.versions import merge_check

    spec = AlphabetSpec(program_mode=True)
    dfas = [learned(str(C_DIR / "merge" / f"{n}.c"), alphabet=spec).dfa for n in ("base", "a", "b", "merged")]
    diffs = {d.name: d.dfa for d in merge_check(*dfas)}
    assert diffs["in_neither"].words(6) == [("funcA", "funcZ", "funcC", "end")]
    assert set(diffs["not_in_b"].words(6)) == {("funcA", "funcZ", "funcB", "end"), ("funcA", "funcZ", "funcC", "end")}


def test_program_explanation_of_merge_sort():
    r = learned(str(C_DIR / "mergesort.c"), alphabet=AlphabetSpec(program_mode=True), bound=3, bwl=8)
    words = set(r.automaton.words(9))
    assert ("split", "end") in words  # n = 0 or 1
    assert ("split", "split", "split", "merge", "end") in words  # n = 2
    assert all(w[0] == "split" and w[-1] == "end" for w in words)
    it = Interpreter(r.inst.program, InterpOptions())
    for word, inputs in r.witnesses.items():
        run = it.run(InputSource(list(inputs)))
        assert tuple(e for e, _ in run.events) + ("end",) == word


def test_branch_alphabet_and_source_events(cfile):
    path = cfile("int nondet_int(void);\nint main(void) { int x = nondet_int();\n"
                 "  if (x > 3) __tl_event(\"big\"); else __tl_event(\"small\");\n"
                 "  __CPROVER_assert(x != 7, \"seven\"); return 0; }")
    r = learned(path, alphabet=AlphabetSpec(functions="none"), bound=1, bwl=2)
    assert r.automaton.words(2) == [("big", "assert")]  # the guarantee covers words of <= bwl letters
    rb = learned(path, alphabet=AlphabetSpec(functions="none", branches=True), bound=1, bwl=3)
    (w,) = rb.automaton.words(3)
    assert w[0].endswith(":T") and w[1] == "big" and w[-1] == "assert"


def test_cli_json_and_html(tmp_path):
    html = tmp_path / "r.html"
    p = subprocess.run(["tracelearn", "explain", FIG2, "--bound", "4", "--max-word-length", "4", "--json",
                        "--html", str(html)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    for key in ("schema_version", "alphabet", "bounds", "automaton", "dominating_letters", "doomed_states", "stats"):
        assert key in doc
    assert doc["bounds"] == {**doc["bounds"], "b": 4, "bwl": 4}
    assert {(t["from"], t["letter"], t["to"]) for t in doc["automaton"]["transitions"]} == {(0, "g", 0), (0, "f", 1), (1, "assert", 2)}
    s = doc["stats"]
    assert s["membership_asked"] == s["by_cache"] + s["by_precheck"] + s["by_guess"] + s["by_teacher"]
    text = html.read_text()
    assert "<svg" in text and "#L4" in text and "#L5" in text  # g and f are defined there
    report = tmp_path / "r.json"
    report.write_text(p.stdout)
    p2 = subprocess.run(["tracelearn", "replay", str(report)], capture_output=True, text=True, timeout=300)
    assert p2.returncode == 0, p2.stdout + p2.stderr
    assert "3/3 witnesses replayed" in p2.stdout  # f, g f, g g f (then assert): words of <= 4 letters


@pytest.mark.parametrize("args", [
    ["explain", FIG2, "--letters", "nosuchfunction"],
    ["explain", FIG2, "--assertion", "99"],
    ["explain", FIG2, "--learner", "magic"],
    ["explain", FIG2, "--program", "--assertion", "5"],
    ["replay", "/no/such/report.json"],
])
def test_explain_bad_options(args):
    p = subprocess.run(["tracelearn", *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("tracelearn: error:") and "Traceback" not in p.stderr


def test_timeout_stops_the_unwinding(cfile, capsys):
    """--timeout holds while the program is being unwound, not only between queries:
    a deep unwinding (here 100,000 iterations of a loop) ends at the limit with a clear
    error, not minutes later."""
    from conftest import cli

    path = cfile("""
        #include <assert.h>
        int nondet(void);
        void f(void) {}
        int main(void) {
            int s = 0;
            for (int i = 0; i < 100000; i++) { s += nondet(); f(); }
            assert(s != 7);
            return 0;
        }""")
    code, out, err = cli(["explain", path, "--bound", "100000", "--max-word-length", "3", "--timeout", "2",
                          "--quiet"], capsys)
    assert code != 0 and out == ""
    assert "timeout while encoding bound 100000" in err and "Traceback" not in err


def words(r, bwl: int) -> set:
    return {tuple(w) for w in r.automaton.iter_words(bwl)}


@pytest.mark.parametrize("name,bound,bwl", [("fig2", 4, 4), ("fig8", 3, 6), ("fig10", 4, 4), ("mergesort", 3, 8)])
def test_paths_engine_learns_the_same_language(name, bound, bwl):
    """--engine paths (every path on its own, then one equation of the failing prefixes)
    and the merged unwinding answer the same membership queries: the languages agree on
    every word of at most bwl letters, the only ones Theorem 4.1 speaks of."""
    path = FIG2 if name == "fig2" else str(C_DIR / f"{name}.c")
    mode = {"alphabet": AlphabetSpec(program_mode=True)} if name == "mergesort" else {}  # its paths, not errors
    merged = learned(path, bound=bound, bwl=bwl, **mode)
    paths = learned(path, bound=bound, bwl=bwl, engine="paths", **mode)
    assert words(paths, bwl) == words(merged, bwl)
    assert words(paths, bwl)  # each of them has accepted words
    if name == "fig2":
        assert paths.automaton.equivalent(fig5c())
    if mode:
        return
    for w, inputs in paths.witnesses.items():  # every witness drives the interpreter to the failure
        run = Interpreter(paths.inst.program, InterpOptions()).run(InputSource(list(inputs), seed=0), argv=None)
        assert run.status == "violation", (w, run.status)


def test_paths_engine_cuts_loops_at_the_bound(cfile):
    """A loop the input keeps going: the path strategy stops at the bound, as the
    unwinding does, so the language is the same finite one."""
    path = cfile("""
        #include <assert.h>
        int nondet(void);
        void tick(void) {}
        int main(void) {
            int n = 0;
            while (nondet()) { tick(); n++; }
            assert(n != 2);
            return 0;
        }""")
    for engine in ("merged", "paths"):
        r = learned(path, bound=3, bwl=5, engine=engine)
        assert words(r, 5) == {("tick", "tick", "assert")}, engine


def test_cut_paths_make_the_language_incomplete(cfile):
    """A path the engine cannot follow (here sprintf of a value the merged unwinding
    keeps symbolic) is not a run without failure: the result says the language may
    miss words instead of claiming that no run fails."""
    path = cfile("""
        #include <assert.h>
        #include <stdio.h>
        #include <string.h>
        int nondet(void);
        int main(void) {
            char buf[16];
            sprintf(buf, "%d", nondet() ? 7 : 8);
            assert(strcmp(buf, "7") != 0);
            return 0;
        }""")
    merged = learned(path, bound=2, bwl=2)
    assert merged.automaton.is_empty() and merged.incomplete
    assert "sprintf" in merged.incomplete[0]
    paths = learned(path, bound=2, bwl=2, engine="paths")  # each path has a constant to print
    assert words(paths, 2) == {("assert",)} and not paths.incomplete


def test_fig2_learned_with_every_query_in_bitwuzla(monkeypatch):
    """With no share for z3's incremental solver, each of the teacher's queries goes to the
    Bitwuzla session (asked first, as for an equation with floats): the same automaton,
    and the witnesses replay."""
    from tracelearn.semantics import bitblast, bitwuzla_backend, bmc

    if not bitwuzla_backend.available():
        pytest.skip("bitwuzla is not installed")
    monkeypatch.setattr(bmc, "INCREMENTAL_S", 0.0)
    monkeypatch.setattr(bmc, "INCREMENTAL_AFTER_FRESH_S", 0.0)
    monkeypatch.setattr(bitblast.BitBlastSession, "preferred", lambda self: False)
    r = learned(FIG2, bound=4, bwl=4, lazy=False)
    assert r.automaton.equivalent(fig5c())
    solver = r.teacher_stats.solver
    assert solver.bitwuzla_calls > r.teacher_stats.solver_members + r.teacher_stats.batch_queries
    assert solver.fresh_calls == solver.bitblast_calls == 0
    it = Interpreter(r.inst.program, InterpOptions())
    for word, inputs in r.witnesses.items():
        run = it.run(InputSource(list(inputs)))
        assert run.status == "violation" and run.violation.prop_id in r.inst.targets
