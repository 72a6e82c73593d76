"""Bounded model checking: verdicts, replayed counterexamples, incremental queries."""

from __future__ import annotations


import z3

from conftest import EXAMPLES
from tracelearn.frontend.lower import load_program
from tracelearn.analyses.check import CheckOptions, check
from tracelearn.semantics.bmc import Encoding
from tracelearn.semantics.traces import extract, replay
from tracelearn.semantics.interpreter import ALL_CHECKS

HEADER = "int nondet_int(void); unsigned nondet_uint(void); float nondet_float(void);\n#include <assert.h>\n"


def verdict(path, entry="main", **kw):
    opts = CheckOptions(**{"timeout_s": 30.0, **kw})
    return check(load_program(path, entry=entry), opts)


def assert_replays(res):
    assert res.verdict == "false"
    assert res.counterexample.replay["status"] == "confirmed", res.counterexample.replay


def test_sort_fails_and_replays():
    res = verdict(str(EXAMPLES / "sort.c"), entry="f")
    assert_replays(res)
    assert res.counterexample.loc.line == 19
    assert res.counterexample.kind == "assertion"


def test_fully_unwound_loop_is_true(cfile):
    path = cfile(HEADER + "int main(void){ int s=0; for(int i=0;i<5;i++) s+=i; assert(s==10); return 0; }")
    res = verdict(path)
    assert res.verdict == "true"


def test_unbounded_loop_is_true_up_to_bound(cfile):
    path = cfile(HEADER + "int main(void){ int x = nondet_int(); while (x > 0) x--; assert(x <= 0); return 0; }")
    res = verdict(path, bound=3)
    assert res.verdict == "true-up-to-bound"
    assert res.bound == 3


def test_deep_loop_bug_found_by_deepening(cfile):
    path = cfile(HEADER + "int main(void){ unsigned n = nondet_uint(); for (unsigned i = 0; i < n; i++) "
                 "{ if (i == 6) assert(0); } return 0; }")
    res = verdict(path)
    assert_replays(res)
    assert res.bound == 8
    res = verdict(path, bound=4)
    assert res.verdict == "true-up-to-bound"


def test_heap_list_bug(cfile):
    path = cfile(HEADER + r'''
#include <stdlib.h>
struct node { int v; struct node *next; };
int main(void) {
    struct node *head = 0;
    int n = nondet_int();
    __CPROVER_assume(n >= 0 && n <= 3);
    for (int i = 0; i < n; i++) {
        struct node *x = malloc(sizeof *x);
        x->v = i; x->next = head; head = x;
    }
    int s = 0;
    for (struct node *p = head; p; p = p->next) s += p->v;
    assert(s != 3);
    return 0;
}''')
    res = verdict(path)
    assert_replays(res)


def test_bounds_violation(cfile):
    path = cfile(HEADER + "int a[4];\nint main(void){ int i = nondet_int(); if (i >= 0) a[i] = 1; return 0; }")
    res = verdict(path)
    assert_replays(res)
    assert res.counterexample.kind == "bounds"
    # Switched off, the out-of-bounds write is undefined behaviour the paths stop at:
    # no `true` (it could hide what follows), but `unknown` naming it.
    res = verdict(path, checks=frozenset({"assertion"}))
    assert res.verdict == "unknown" and "bounds check switched off" in res.reason


def test_null_dereference(cfile):
    path = cfile(HEADER + "int g;\nint main(void){ int *p = nondet_int() ? &g : 0; *p = 3; return g; }")
    res = verdict(path)
    assert_replays(res)
    assert res.counterexample.kind == "pointer"


def test_division_by_zero(cfile):
    path = cfile(HEADER + "int main(void){ int d = nondet_int(); return 100 / (d - 7); }")
    res = verdict(path)
    assert_replays(res)
    assert res.counterexample.kind == "div-by-zero"
    assert res.counterexample.input_values == [7]


def test_floats(cfile):
    ok = cfile(HEADER + "int main(void){ float x = nondet_float(); __CPROVER_assume(x > 1.0f && x < 2.0f); "
               "assert(x * x < 4.0f); return 0; }", "ok.c")
    assert verdict(ok).verdict == "true"
    bad = cfile(HEADER + "int main(void){ float x = nondet_float(); __CPROVER_assume(x > 1.0f && x < 2.0f); "
                "assert(x * x < 3.9f); return 0; }", "bad.c")
    assert_replays(verdict(bad))


def test_recursion_and_function_pointers(cfile):
    path = cfile(HEADER + r'''
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int twice(int x) { return 2 * x; }
int inc(int x) { return x + 1; }
int (*ops[2])(int) = { twice, inc };
int main(void) {
    int n = nondet_int();
    __CPROVER_assume(n >= 0 && n <= 5);
    int k = nondet_int();
    __CPROVER_assume(k == 0 || k == 1);
    assert(ops[k](fact(n)) != 121);
    return 0;
}''')
    res = verdict(path)
    assert_replays(res)
    assert res.counterexample.input_values == [5, 1]


def test_error_call_and_recursion_bound(cfile):
    path = cfile("extern void __VERIFIER_error(void); extern int __VERIFIER_nondet_int(void);\n"
                 "int f(int n) { if (n <= 0) return 0; return 1 + f(n - 1); }\n"
                 "int main(void) { int n = __VERIFIER_nondet_int(); if (n < 0 || n > 4) return 0;"
                 " if (f(n) != n) { ERROR: __VERIFIER_error(); } return 0; }")
    res = verdict(path)
    assert res.verdict == "true"


def test_unsupported_library_gives_unknown(cfile):
    path = cfile(HEADER + "#include <stdlib.h>\nint main(void){ char *p = malloc(2); p = realloc(p, 4); "
                 "assert(p != 0); return 0; }")
    res = verdict(path)
    assert res.verdict == "unknown"
    assert "realloc" in res.reason


def test_timeout_gives_unknown_or_bounded_never_wrong(cfile):
    # Hard for the solver: a multiplicative inverse search on 64 bits.
    path = cfile(HEADER + "int main(void){ unsigned long a = nondet_int(), b = nondet_int();"
                 " assert(a * b * 0x9E3779B97F4A7C15ul != 0x1234567ul || a < 2); return 0; }")
    res = verdict(path, timeout_s=0.05)
    assert res.verdict in ("unknown", "false")
    if res.verdict == "false":
        assert_replays(res)


def test_incremental_queries_on_one_encoding(cfile):
    path = cfile(HEADER + "int main(void){ int x = nondet_int(); assert(x != 1); assert(x != 2); return 0; }")
    enc = Encoding(load_program(path), bound=1)
    checks = enc.checks(ALL_CHECKS)
    assert len(checks) == 2
    values = []
    for c in checks:
        r, model = enc.solve(c.violation)
        assert r == "sat"
        cex = extract(enc.eq, model)
        assert cex.prop_id == c.prop_id
        assert replay(enc.program, cex, ALL_CHECKS)["status"] == "confirmed"
        values.append(cex.input_values[0])
    assert values == [1, 2]
    # An extra constraint rules the second failure out.
    x = [s for s in enc.eq.steps if s.kind == "input"][0].ssa
    r, _ = enc.solve(checks[1].violation, extra=[x != 2])
    assert r == "unsat"
    assert enc.stats.calls >= 3


def test_interpreter_and_bmc_agree_on_a_deterministic_value(cfile):
    """Differential: the value the interpreter computes is the only one the BMC allows."""
    import io

    from tracelearn.semantics.interpreter import Interpreter, InterpOptions

    src = HEADER + r'''
#include <stdio.h>
unsigned mix(unsigned x) { for (int i = 0; i < 4; i++) x = (x << 3) ^ (x >> 5) ^ (unsigned char)(x * 7u); return x; }
int main(void) { struct { short s; unsigned b : 5; } v = { -3, 17 }; int r = (int)mix(12345u) + v.s * (int)v.b;
  printf("%d\n", r); assert(r != EXPECTED); return 0; }'''
    probe = cfile(src.replace("assert(r != EXPECTED);", ""), "probe.c")
    out = io.BytesIO()
    Interpreter(load_program(probe), InterpOptions(stdout=out)).run()
    value = int(out.getvalue())
    path = cfile(src.replace("EXPECTED", str(value)), "diff.c")
    res = verdict(path)
    assert_replays(res)
    path2 = cfile(src.replace("EXPECTED", str(value + 1)), "diff2.c")
    assert verdict(path2).verdict == "true"


def test_queries_under_assumptions_go_first_where_each_solver_is_fast(cfile, monkeypatch):
    """Past z3's incremental share, a pure bit-vector equation's query goes to the
    bit-blasted session, a query on floats to Bitwuzla (z3's fpa2bv circuits are slow to
    bit-blast); both answer as z3 and their models give the same counterexample."""
    import pytest
    from tracelearn.semantics import bitwuzla_backend, bmc
    from tracelearn.semantics.bitwuzla_backend import BitwuzlaWorker

    if not bitwuzla_backend.available():
        pytest.skip("bitwuzla is not installed")
    monkeypatch.setattr(bmc, "INCREMENTAL_S", 0.0)
    monkeypatch.setattr(bmc, "INCREMENTAL_AFTER_FRESH_S", 0.0)
    ints = cfile(HEADER + "int main(void){ int x = nondet_int(); assert(x * 3 != 21); return 0; }", "ints.c")
    floats = cfile(HEADER + "int main(void){ float f = nondet_float(); assert(f * 3.0f != 21.0f); return 0; }", "floats.c")
    with BitwuzlaWorker() as worker:
        for path, first in ((ints, "bitblast_calls"), (floats, "bitwuzla_calls")):
            enc = Encoding(load_program(path), bound=1, bitwuzla=worker)
            [c] = enc.checks(ALL_CHECKS)
            r, model = enc.solve(assumptions=[enc.literal(c.violation)])
            assert r == "sat"
            assert getattr(enc.stats, first) == 1 and enc.stats.fresh_calls == 0
            assert replay(enc.program, extract(enc.eq, model), ALL_CHECKS)["status"] == "confirmed"
            r, _ = enc.solve(assumptions=[enc.literal(z3.And(c.violation, c.violation == False))])
            assert r == "unsat"


def test_quick_share_backs_off_and_stays_under_the_other_solvers_time():
    from tracelearn.semantics.solving import MAX_QUICK_SKIP, QuickShare

    q = QuickShare(1.0, 0.1)
    assert q.next() == 1.0
    skipped = []
    for _ in range(6):
        q.missed()
        n = 0
        while (share := q.next()) == 0.0:
            n += 1
        assert share == 0.1
        skipped.append(n)
    assert skipped == [1, 3, 7, MAX_QUICK_SKIP, MAX_QUICK_SKIP, MAX_QUICK_SKIP]
    q.answered()
    assert q.next() == 1.0 and q.misses == 0
    q.elsewhere(0.2)
    assert q.next() == 0.2
    q.elsewhere(0.4)
    assert abs(q.next() - 0.26) < 1e-9


def test_a_field_stored_as_a_value_reads_back_as_that_value_in_an_object_with_unknown_bytes(cfile):
    """The struct's padding is never written, so its contents are named symbols; the
    fields stored with values read back as those values (through the names'
    definitions): the branches on them are decided as the program is unwound, and no
    guard after them depends on the padding (csmith's programs: a branch on such a
    field made every guard after it an if-then-else of the two ways)."""
    path = cfile(HEADER + """
struct S { char c; long x; short y; };
int main(void) {
  struct S s;
  s.c = 1; s.x = 5; s.y = -3;
  s.c = 2;  /* a newer version of the object, the others read through it */
  int r = 0;
  if (s.x != 5) r = 1;
  if (s.y != -3) r = 2;
  if (s.c != 2) r = 3;
  assert(r == 0);
  return r;
}""")
    enc = Encoding(load_program(path), bound=1)
    decisions = [s for s in enc.eq.steps if s.kind == "decision"]
    assert len(decisions) == 3 and all(z3.is_false(s.cond) for s in decisions)
    assert not enc.checks(ALL_CHECKS)  # the assertion holds by the values alone
    assert verdict(path).verdict == "true"


def test_the_ways_out_of_a_loop_meet_again_under_the_guard_before_it_when_the_rest_was_refuted(cfile):
    """strcmp with a constant string: the iteration after the constant's end is refuted
    by the pruning solver, so the loop's exits cover every live case, and the
    statement after the call is guarded as the one before it (a disjunction of the
    exits before: every guard after a program's argv test was one)."""
    path = cfile("""#include <string.h>
char nondet_char(void);
int main(void) {
  char a[3];
  a[0] = nondet_char(); a[1] = nondet_char(); a[2] = 0;
  int f = 0;
  if (strcmp(a, "1") == 0) f = 1;
  int g = 7;
  return f + g;
}""")
    enc = Encoding(load_program(path), bound=3)
    after = [s for s in enc.eq.steps if s.kind == "assign" and s.lhs == "g"]
    assert len(after) == 1 and z3.is_true(after[0].guard)
