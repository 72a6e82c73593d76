"""Work in a forked child (`forked.py`), and what comes back from one: the Horn-clause
proof runs in a process beside the model checker, its invariants sent as text."""

from __future__ import annotations

import gc
import pickle
import time

import pytest
import z3

from tracelearn.analyses.check import CheckOptions, CheckProgress, check as portfolio
from tracelearn.forked import ChildLost, Forked, can_fork
from tracelearn.frontend.lower import DEFAULT_CHECKS, load_program
from tracelearn.semantics.chc import Invariant

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs fork and a single-threaded process")


def test_the_childs_value_comes_back():
    child = Forked(lambda: {"rows": [(1, -2, None)], "n": 3})
    assert child.receive(30) == {"rows": [(1, -2, None)], "n": 3}
    child.close()


def test_an_exception_in_the_child_is_said_with_its_message():
    def work() -> int:
        raise ValueError("no samples")
    child = Forked(work)
    with pytest.raises(ChildLost, match="ValueError: no samples") as e:
        child.receive(30)
    assert e.value.answered
    child.close()


def test_a_killed_child_gives_no_answer_and_a_slow_one_times_out():
    child = Forked(lambda: time.sleep(30))
    with pytest.raises(TimeoutError):
        child.receive(0.05)
    child.kill()
    with pytest.raises(ChildLost) as e:
        child.receive(5)
    assert not e.value.answered
    child.close()


def test_an_invariant_survives_pickling_with_its_c_names():
    ctx = z3.Context()  # the proof's own context; it comes back in the main one
    old, res = z3.Int("\\old(x)", ctx), z3.Int("\\result", ctx)
    f = z3.And(z3.Implies(old > 100, res == old - 10), z3.Implies(old <= 100, res == 91))
    inv = Invariant("f91", "summary", "m.c:3:5", "text", True, f)
    back = pickle.loads(pickle.dumps(inv))
    assert (back.proc, back.kind, back.loc, back.text, back.is_c) == ("f91", "summary", "m.c:3:5", "text", True)
    g = back.formula
    assert g is not None and g.ctx == z3.main_ctx()
    names = {str(c) for c in _consts(g)}
    assert names == {"\\old(x)", "\\result"}
    same = z3.Solver()
    same.add(g != f.translate(z3.main_ctx()))
    assert same.check() == z3.unsat


def test_an_invariant_without_a_formula_pickles():
    inv = Invariant("main", "loop", "t.c:4:5", "x == y", True)
    assert pickle.loads(pickle.dumps(inv)).formula is None


MCCARTHY = """
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int f91(int x) { if (x > 100) return x - 10; return f91(f91(x + 11)); }
int main(void) {
    int x = __VERIFIER_nondet_int();
    int r = f91(x);
    if (!(r == 91 || (x > 101 && r == x - 10))) reach_error();
    return 0;
}
"""


def test_the_proof_runs_in_a_process_and_the_collector_stays_on(tmp_path):
    path = tmp_path / "m.c"
    path.write_text(MCCARTHY)
    checks = DEFAULT_CHECKS | {"error-call"}
    program = load_program(str(path), "ILP32", checks=checks)
    seen: list[bool] = []
    opts = CheckOptions(timeout_s=60, checks=frozenset(checks), bug_search=False,
                        progress=lambda _: seen.append(gc.isenabled()))
    done_gc = gc.isenabled()
    done = CheckProgress()
    res = portfolio(program, opts, done)
    assert done.proof is not None and done.proof.runs_in == "process"
    assert res.verdict == "true" and res.proved_by == "chc"
    assert res.proof is not None and res.proof.status == "proved"
    summary = next(i for i in res.proof.invariants if i.proc == "f91")
    assert summary.formula is not None  # evaluated in this process: back from the child's text
    x, r = (next(c for c in _consts(summary.formula) if str(c) == n) for n in ("\\old(x)", "\\result"))
    val = lambda c, v: z3.IntVal(v) if c.sort().kind() == z3.Z3_INT_SORT else z3.BitVecVal(v, c.size())  # noqa: E731
    holds = lambda a, b: z3.is_true(z3.simplify(z3.substitute(summary.formula, (x, val(x, a)), (r, val(r, b)))))  # noqa: E731
    assert holds(50, 91) and holds(200, 190) and not holds(50, 92)
    assert all(seen) == done_gc  # no collector switched off while the proof ran


def _consts(f):
    out, todo = [], [f]
    while todo:
        e = todo.pop()
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.append(e)
        elif z3.is_app(e):
            todo.extend(e.children())
    return out
