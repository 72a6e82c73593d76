"""`check`'s bug search beside the model checker (``analyses/falsify.py``): a bug behind
a deep recursion found without unwinding that deep, and no bug that needs what the
conventions rule out (a wrap-around assumed absent, a switched-off check failing first)."""

from __future__ import annotations

import os

import tracelearn
from tracelearn.analyses.check import CheckOptions, check
from tracelearn.api.checking import check_run
from tracelearn.frontend.lower import load_program
from tracelearn.semantics.interpreter import Interpreter, InterpOptions
from tracelearn.semantics.inputs import InputSource

# m + k one step at a time: the failure needs k >= 120 levels of recursion (the model
# checker's deepening reaches them at bound 128) and a sum past INT_MAX
CLIMB = """#include <assert.h>
int nondet_int(void);
int climb(int m, int k) {
    if (k == 0)
        return m;
    return climb(m + 1, k - 1);
}
int main(void) {
    int m = nondet_int();
    int k = nondet_int();
    if (k < 0 || k > 1000)
        return 0;
    int r = climb(m, k);
    if (m > 0 && k >= 120 && r < m)
        assert(0);
    return 0;
}
"""

# a count of 150 levels exactly
COUNT = """#include <assert.h>
int nondet_int(void);
int count(int n) {
    if (n <= 0)
        return 0;
    return 1 + count(n - 1);
}
int main(void) {
    int n = nondet_int();
    assert(count(n) != 150);
    return 0;
}
"""


def _replays(path: str, values: list, checks: frozenset[str]) -> str:
    r = Interpreter(load_program(path), InterpOptions(checks=checks)).run(InputSource(list(values)), argv=None)
    return r.violation.kind if r.status == "violation" and r.violation is not None else r.status


def test_search_finds_deep_bug_and_it_replays(cfile):
    path = cfile(COUNT)
    run = check_run(path, timeout=60, prove="none", bug_search=True)
    res = run.result
    assert res.verdict == "false"
    cex = res.counterexample
    assert cex.replay["status"] == "confirmed"
    # an independent replay of the inputs: 150 levels, the assertion fails
    assert cex.input_values == [150]
    assert _replays(path, cex.input_values, frozenset({"assertion"})) == "assertion"
    if res.found_by == "bug search":  # (the model checker may win the race on a fast machine)
        assert res.bound is None and run.doc["bug_search"]["status"] == "found"
        assert run.doc["bug_search"]["runs"] >= 1 and run.doc["found_by"] == "bug search"
    else:
        assert res.found_by == "unwinding" and res.bound == 256


def test_search_needs_the_wrap_around(cfile):
    path = cfile(CLIMB)
    res = check_run(path, checks="assertion", timeout=60, prove="none", bug_search=True).result
    assert res.verdict == "false" and res.counterexample.replay["status"] == "confirmed"
    m, k = res.counterexample.input_values
    assert m > 0 and 120 <= k <= 1000 and m + k > 2**31 - 1
    # SV-COMP's convention: a signed overflow is assumed not to happen (the path ends
    # there), and this program has no bug: neither strategy may say false
    res = check_run(path, checks="assertion", timeout=8, prove="none", bug_search=True,
                    assumed=("overflow",)).result
    assert res.verdict != "false"
    assert res.search is not None and res.search.status in ("none", "stopped")


def test_failure_of_a_switched_off_check_is_no_bug(cfile):
    # division by zero is undefined behaviour, not a selected check: a run that divides
    # by zero stops there and is no witness of the assertion after it
    path = cfile("#include <assert.h>\nint nondet_int(void);\n"
                 "int main(void){ int x = nondet_int(); int y = 100 / x; assert(x != 0 || y == 7); return 0; }\n")
    res = check_run(path, checks="assertion", timeout=10, prove="none", bug_search=True).result
    assert res.verdict != "false"


def test_search_stops_with_the_check(cfile):
    # a safe program: the model checker answers true, the search is stopped, and no
    # process of it is left behind
    path = cfile("#include <assert.h>\nint nondet_int(void);\n"
                 "int main(void){ int x = nondet_int(); if (x > 5) assert(x > 4); return 0; }\n")
    opts = CheckOptions(timeout_s=30, bug_search=True)
    before = _children()
    res = check(load_program(path), opts)
    assert res.verdict == "true"
    assert res.search is not None and res.search.status == "stopped"
    assert _children() <= before


def _children() -> set[int]:
    """This process's child processes (Linux), zombies included."""
    out: set[int] = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                out |= {int(p) for p in f.read().split()}
        except FileNotFoundError:  # a thread that ended since the listing (a query's helper)
            continue
    return out


def test_default_is_on_when_deepening_only(cfile):
    path = cfile(COUNT)
    assert check_run(path, bound=4, timeout=30, prove="none").doc["bug_search"] is None
    assert check_run(path, timeout=30, prove="none", minimize="length").doc["bug_search"] is None
    doc = tracelearn.check(path, timeout=60, prove="none")
    assert doc["verdict"] == "false" and doc["bug_search"] is not None


def test_a_failing_search_leaves_the_verdict_to_the_model_checker(cfile, monkeypatch):
    # the search fails in its process (here: made to raise; the fork copies the patch):
    # the model checker's verdict stands, and the JSON says why the search gave none
    from tracelearn.analyses import falsify

    def broken(*args, **kwargs):
        raise RuntimeError("no search today")
    monkeypatch.setattr(falsify, "bug_searcher", broken)
    run = check_run(cfile(COUNT), timeout=60, prove="none", bug_search=True)
    assert run.result.verdict == "false" and run.result.found_by == "unwinding"
    assert run.result.counterexample.replay["status"] == "confirmed"
    assert run.doc["bug_search"]["status"] in ("failed", "stopped")
    if run.doc["bug_search"]["status"] == "failed":
        assert "no search today" in run.doc["bug_search"]["reason"]


def test_a_runtime_check_is_found_too(cfile):
    # an index past the end after 100 levels of recursion: no assertion or error call,
    # so no flip heads for it, and the runs find it
    path = cfile("int nondet_int(void);\n"
                 "int depth(int n) { if (n <= 0) return 0; return 1 + depth(n - 1); }\n"
                 "int main(void) { int a[100]; int n = nondet_int(); int d = depth(n);\n"
                 "  if (d >= 0 && d < 200) a[d] = 1; return 0; }\n")
    res = check_run(path, checks="bounds", timeout=60, prove="none", bug_search=True).result
    assert res.verdict == "false" and res.counterexample.kind == "bounds"
    assert res.counterexample.replay["status"] == "confirmed"
    (n,) = res.counterexample.input_values[-1:]
    assert 100 <= n < 200
    assert _replays(path, res.counterexample.input_values, frozenset({"bounds"})) == "bounds"
