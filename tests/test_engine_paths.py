"""The single-path strategy (``semantics/strategies/path.py``) on the shared symbolic
semantics, held against the interpreter:

- every decision vector the interpreter makes on random inputs is a member (and so is
  each prefix), and the solver's model for it, replayed, makes those decisions;
- exploring every path of a program with one byte of input gives exactly the decision
  vectors of the 256 concrete runs;
- words are decided with one solver over shared prefixes (push/pop), and infeasible
  prefixes are remembered;
- a run can stop before an event and go on from there (Sigma*'s big steps).
"""

from __future__ import annotations

import itertools
import random

import pytest

from tracelearn.frontend.lower import load_program
from tracelearn.ir.program import Nondet, is_library_file
from tracelearn.semantics.traces import model_value
from tracelearn.semantics.inputs import InputSource
from tracelearn.semantics.interpreter import Interpreter, InterpOptions
from tracelearn.semantics.strategies.path import PathExplorer, PathOptions
from tracelearn.semantics.symbolic import SemanticsOptions, SymbolicSemantics
from tracelearn.semantics.targets import PathTarget

HEAD = "#include <assert.h>\nint __VERIFIER_nondet_int(void); unsigned char __VERIFIER_nondet_uchar(void);\n"

PROGRAMS = {
    "nested": """
int f(int a) { if (a > 10) return 1; return 0; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 5) { if (x < 3) { y = 1; } y = f(y); }
  for (int i = 0; i < y && i < 6; i++) { x++; }
  return x == 100;
}""",
    "shortcircuit_loop": """
int main(void) {
  int n = __VERIFIER_nondet_int(), s = 0;
  int a[4] = {3, -1, 4, 1};
  for (int i = 0; i < 4; i++) { if (a[i] > 0 && n > a[i]) s += a[i]; else if (n == i || s > 5) s--; }
  while (s > 0) s -= 2;
  return s;
}""",
    "recursion_pointers": """
int sum(int n) { if (n <= 0) return 0; return n + sum(n - 1); }
int twice(int v) { return 2 * v; }
int neg(int v) { return -v; }
int main(void) {
  int k = __VERIFIER_nondet_int();
  int (*op)(int) = k & 1 ? twice : neg;
  int r = op(k % 5);
  if (r > 3) r = sum(r % 4);
  return r;
}""",
}


def _explorer(path, **kw) -> PathExplorer:
    program = load_program(str(path))
    return PathExplorer(SymbolicSemantics(program, SemanticsOptions(), PathTarget()), PathOptions(**kw))


def _user_decisions(program, run) -> tuple[bool, ...]:
    user = {b.term.decision_id for p in program.procedures.values() if not is_library_file(p.loc.file)
            for b in p.blocks if hasattr(b.term, "decision_id")}
    return tuple(c for d, c in run.decisions if d in user)


def _run(program, values, seed=0):
    it = Interpreter(program, InterpOptions(record_decisions=True, max_steps=100_000))
    return it.run(InputSource(list(values), seed=seed), argv=None)


def _model_inputs(ex: PathExplorer) -> list:
    model = ex.model()
    assert model is not None
    return [model_value(model, s.ssa, s.type) for s in ex.target.eq.steps if s.kind == "input"]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_concrete_decision_vectors_are_members_and_models_replay(tmp_path, name):
    path = tmp_path / f"{name}.c"
    path.write_text(HEAD + PROGRAMS[name])
    ex = _explorer(path)
    program = ex.sem.program
    rng = random.Random(7)
    seen = 0
    for seed in range(25):
        values = [rng.choice([0, 1, 2, 3, 5, 7, 11, -1, -4, 100, rng.randint(-50, 50)]) for _ in range(2)]
        run = _run(program, values)
        assert run.status == "ok"
        d = _user_decisions(program, run)
        for k in {0, len(d) // 2, len(d)}:
            end = ex.follow(d[:k])
            assert end.status == "word", (d[:k], end)
            # The solver's inputs for this prefix make exactly these first decisions.
            replayed = _user_decisions(program, _run(program, _model_inputs(ex)))
            assert replayed[:k] == d[:k]
        seen += 1
    assert seen == 25


def test_every_path_of_a_byte_program_is_found_and_nothing_else(tmp_path):
    path = tmp_path / "byte.c"
    path.write_text(HEAD + """
int main(void) {
  unsigned char c = __VERIFIER_nondet_uchar();
  int n = 0;
  while (c > 0 && n < 9) { if (c & 1) n += 2; else n++; c >>= 1; }
  if (n == 7 || (c == 0 && n > 12)) return 1;
  return 0;
}""")
    ex = _explorer(path)
    program = ex.sem.program
    concrete = {_user_decisions(program, _run(program, [v])) for v in range(256)}
    ends = list(ex.explore())
    symbolic = {e.decisions for e in ends if e.status == "exit"}
    assert {e.status for e in ends} <= {"exit", "infeasible"}
    assert symbolic == concrete
    assert len(concrete) > 20


def test_words_share_prefixes_and_infeasible_prefixes_are_remembered(tmp_path):
    path = tmp_path / "nested.c"
    path.write_text(HEAD + PROGRAMS["nested"])
    ex = _explorer(path)
    assert ex.follow((True, True)).status == "infeasible"  # x > 5 && x < 3
    calls = ex.target.calls
    assert ex.follow((True, True, False, True)).status == "infeasible"
    assert ex.target.calls == calls  # no solver call: a known infeasible prefix
    assert ex.follow((True, False, True)).status == "word"
    calls = ex.target.calls
    # One more decision after a word just asked: at most one solver call (none when the
    # condition is constant there), the prefix is reused.
    assert ex.follow((True, False, True, True)).status == "word"
    assert ex.target.calls <= calls + 1
    assert ex.follow((False, True, True)).status == "word"
    calls = ex.target.calls
    assert ex.follow((False, True, True, True)).status == "word"
    assert ex.target.calls == calls + 1  # y symbolic: i < y asked once
    # Decisions past the end of the run: it exits first, so no member.
    words = [w for n in range(1, 9) for w in itertools.product((True, False), repeat=n)]
    program = ex.sem.program
    members = {w for w in words if ex.follow(w).status == "word"}
    concrete = set()
    for x in (-5, 0, 4, 6, 7, 50):
        for y in (-1, 0, 1, 3, 11, 12):
            d = _user_decisions(program, _run(program, [x, y]))
            concrete |= {d[:k] for k in range(1, min(len(d), 8) + 1)}
    assert concrete <= members
    # prefix-closed
    assert all(w[:-1] in members for w in members if len(w) > 1)


def test_runs_stop_before_an_input_and_go_on_from_there(tmp_path):
    path = tmp_path / "stream.c"
    path.write_text(HEAD + """
int main(void) {
  int total = 0;
  for (int i = 0; i < 3; i++) {
    int v = __VERIFIER_nondet_int();
    if (v > 0) total += v; else total -= 1;
  }
  assert(total != 5);
  return 0;
}""")
    ex = _explorer(path)
    is_read = lambda s: isinstance(s, Nondet)  # noqa: E731
    first = [e for e in ex.explore(stop=is_read) if e.status != "infeasible"]
    assert [e.status for e in first] == ["stopped"]  # one path to the first read
    frontier = [first[0].point]
    for level in range(3):
        nxt = []
        for p in frontier:
            for e in ex.explore(p, stop=is_read):
                assert e.status in ("stopped", "exit", "infeasible")
                if e.status == "stopped":
                    nxt.append(e.point)
        if level < 2:
            assert len(nxt) == 2 * len(frontier)  # v > 0 or not, then the next read
        frontier = nxt
    assert frontier == []  # after the third read every path ends


def test_a_limit_hit_while_entering_a_call_leaves_the_call_stack_whole(tmp_path):
    """The step limit can strike at a call's first step: the frame is not left
    behind (it used to break the unwinding of every enclosing call)."""
    from tracelearn.semantics.bmc import Encoding
    from tracelearn.semantics.symbolic import SymexLimit

    path = tmp_path / "deep.c"
    path.write_text(HEAD + "int f(int n) { return n <= 0 ? 0 : 1 + f(n - 1); }\n"
                    "int main(void) { return f(__VERIFIER_nondet_int()); }\n")
    program = load_program(str(path))
    for limit in range(5, 60, 3):
        with pytest.raises(SymexLimit):
            Encoding(program, bound=40, max_steps=limit)


COMPOUND = """
void __VERIFIER_assume(int);
int pick(int v) { return v > 2; }
int other(int v) { return v < -2; }
int main(void) {
  int m = __VERIFIER_nondet_int(), n = __VERIFIER_nondet_int();
  if (m < 0 || m > 1000) return 0;
  if (m > 900) __VERIFIER_assume(0);  /* the decision is made, then every run is cut */
  int (*f)(int) = n & 1 ? pick : other;
  for (int i = 0; i < 3; i++) {
    if ((n > i && m != 7) || n == -i) m++;
    else if (f(n - i) && m < 5) n--;
  }
  return m;
}"""


@pytest.mark.parametrize("eager", [True, False])
def test_words_asked_in_any_order_get_the_answers_asked_alone(tmp_path, eager):
    """One letter per source condition (``a || b`` is one decision) and a call through
    a pointer: a word may be made by several routes. An explorer that has answered
    other words before (resuming from its last path, remembering infeasible prefixes
    where the route is the only one) answers each word as a fresh explorer does."""
    path = tmp_path / "compound.c"
    path.write_text(HEAD + COMPOUND)
    words = [w for n in range(1, 8) for w in itertools.product((True, False), repeat=n)]

    def alone(w):
        return _explorer(path, split_conditions=False, eager=eager).follow(w).status

    truth = {w: alone(w) == "word" for w in words}
    assert 10 < sum(truth.values()) < len(words) - 10
    rng = random.Random(3)
    for _ in range(3):
        order = words[:]
        rng.shuffle(order)
        ex = _explorer(path, split_conditions=False, eager=eager)
        got = {w: ex.follow(w).status == "word" for w in order}
        assert got == truth
        assert any(ex.dead_prefix(w) is not None for w in words)  # known infeasible without a second route
        rng.shuffle(order)  # asked again: now from the points the first answers left
        assert {w: ex.follow(w).status == "word" for w in order} == truth


def test_terms_built_again_come_from_the_semantics_cache(tmp_path, monkeypatch):
    """Words resumed from stored points run their prefixes again: the operators' terms
    come from ``SymbolicSemantics.built`` (fewer terms built), and the answers are the
    ones an explorer whose cache holds one entry at a time gives."""
    import tracelearn.semantics.symbolic as symbolic
    path = tmp_path / "compound.c"
    path.write_text(HEAD + COMPOUND)
    words = [w for n in range(1, 7) for w in itertools.product((True, False), repeat=n)]
    rng = random.Random(5)
    rng.shuffle(words)
    built = []
    real = symbolic.S.binary
    monkeypatch.setattr(symbolic.S, "binary", lambda *a: built.append(1) or real(*a))

    def answers() -> tuple[dict, int]:
        built.clear()
        ex = _explorer(path, split_conditions=False)
        got = {w: ex.follow(w).status for w in words}
        return got, len(built)

    cached, n_cached = answers()
    monkeypatch.setattr(symbolic, "MAX_BUILT", 1)
    uncached, n_uncached = answers()
    assert cached == uncached
    assert sum(s == "word" for s in cached.values()) > 10
    assert n_cached < 0.7 * n_uncached, (n_cached, n_uncached)  # 94 against 157 when written
