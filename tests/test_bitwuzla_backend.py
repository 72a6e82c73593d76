"""Bitwuzla answers the one-off queries: the same answers as z3, models z3 accepts, z3
whenever Bitwuzla cannot read the formula or its process is gone, and Ctrl-C or the
time limit never lost."""

import signal
import time

import pytest
import z3
from hypothesis import given, settings, strategies as st

from tracelearn.api.checking import check_run
from tracelearn.frontend.lower import DEFAULT_CHECKS, load_program
from tracelearn.semantics import bitwuzla_backend
from tracelearn.semantics.bitwuzla_backend import BitwuzlaSession, BitwuzlaWorker, Portable, check_bitwuzla
from tracelearn.semantics.bmc import Encoding
from tracelearn.z3dag import holds, smtlib

pytestmark = pytest.mark.skipif(not bitwuzla_backend.available(), reason="bitwuzla not installed")


@pytest.fixture(scope="module")
def worker():
    with BitwuzlaWorker() as w:
        yield w


@pytest.mark.parametrize("op", ["bvsdiv", "bvudiv", "bvsrem", "bvurem", "bvsmod"])
def test_z3_interpreted_division_is_smtlib_division(op: str) -> None:
    """The renaming of z3's ``_i`` operators is exact: division by zero included."""
    f = z3.parse_smt2_string(f"(declare-const x (_ BitVec 8)) (declare-const y (_ BitVec 8))"
                             f"(assert (not (= ({op}_i x y) ({op} x y))))")
    s = z3.Solver()
    s.add(f)
    assert s.check() == z3.unsat


def test_sat_model_satisfies_the_formula_in_z3(worker) -> None:
    x, y = z3.BitVecs("bw::x bw::y", 32)
    g = z3.Bool("bw::g")
    fs = [x + y == 7, z3.UGT(x, 3), g == (y == 1)]
    r, model, why = check_bitwuzla(worker, fs, None)
    assert r == z3.sat and why == ""
    assert holds(model, fs)
    assert (model.eval(x).as_long() + model.eval(y).as_long()) % 2**32 == 7


def test_unsat(worker) -> None:
    x = z3.BitVec("bw::u", 16)
    assert check_bitwuzla(worker, [z3.ULT(x, 3), z3.UGT(x, 5)], None)[0] == z3.unsat


def test_division_by_constant_read_after_z3_rewrote_it(worker) -> None:
    """z3's simplifier writes ``x % 7`` as ``bvsrem_i``; it is renamed, and answers agree."""
    x = z3.BitVec("bw::d", 32)
    f = z3.simplify(z3.SRem(x, 7) == 5)
    assert "bvsrem_i" in smtlib([f])
    r, model, _ = check_bitwuzla(worker, [f, x > 100], None)
    assert r == z3.sat and model.eval(x).as_signed_long() % 7 == 5


def test_a_formula_bitwuzla_cannot_read_goes_to_z3(worker) -> None:
    n = z3.Int("bw::n")  # no integers in Bitwuzla
    assert check_bitwuzla(worker, [n * n == 49], None) is None


def test_what_z3_writes_that_bitwuzla_does_not_read_is_translated(worker) -> None:
    """An ``or`` of one argument (SMT-LIB's takes two or more) and a float's bits
    (``fp.to_ieee_bv``, z3's own): the same answers, and a model of the formula as given."""
    x = z3.BitVec("bw::o", 8)
    f = z3.FP("bw::f", z3.Float32())
    bits = z3.BitVec("bw::bits", 32)
    stored = [bits == z3.fpToIEEEBV(f), z3.fpGT(f, z3.FPVal(1.5, z3.Float32()))]
    r, model, _ = check_bitwuzla(worker, [z3.Or(x == 3)] + stored + [z3.Extract(31, 24, bits) == 0x40], None)
    assert r == z3.sat and model.eval(x).as_long() == 3
    two, eight = z3.FPVal(2.0, z3.Float32()), z3.FPVal(8.0, z3.Float32())
    assert holds(model, stored + [z3.fpGEQ(f, two), z3.fpLT(f, eight)])
    # the top byte of a float above 1.5 is 0x3f or more
    r, _, _ = check_bitwuzla(worker, stored + [z3.Extract(31, 24, bits) == 3], None)
    assert r == z3.unsat
    # a NaN's bits are a NaN's, in both solvers
    nan = [bits == z3.fpToIEEEBV(f), z3.fpIsNaN(f), z3.Extract(30, 23, bits) != 0xFF]
    assert check_bitwuzla(worker, nan, None)[0] == z3.unsat
    s = z3.Solver()
    s.add(*nan)
    assert s.check() == z3.unsat


def test_a_translated_formula_grows_as_its_encoding_does(worker) -> None:
    """``Portable`` translates the kept part of a growing formula once; a formula that is
    not an extension of the last one is translated afresh."""
    f = z3.FP("bw::g", z3.Float32())
    bits = z3.BitVec("bw::gbits", 32)
    base = [bits == z3.fpToIEEEBV(f)]
    port = Portable()
    grown = base + [z3.fpGT(f, z3.FPVal(1.5, z3.Float32()))]
    for kept, formula, want in ((1, base + [z3.Extract(31, 24, bits) == 3], z3.sat),  # f tiny
                                (2, grown + [z3.Extract(31, 24, bits) == 3], z3.unsat),
                                (2, grown + [z3.Extract(31, 24, bits) == 0x40], z3.sat),
                                (2, [z3.fpLT(f, 0)] + base + [z3.Extract(31, 31, bits) == 0], z3.unsat)):
        r, model, _ = check_bitwuzla(worker, formula, None, None, port, kept)
        assert r == want, formula
        if r == z3.sat:
            assert holds(model, formula)


def test_arrays_get_their_model_from_z3(worker) -> None:
    a = z3.Array("bw::mem", z3.BitVecSort(8), z3.BitVecSort(8))
    i = z3.BitVec("bw::i", 8)
    fs = [z3.Select(a, i) == 42, z3.UGT(i, 200), z3.Select(z3.Store(a, 3, 9), 3) == 9]
    r, model, _ = check_bitwuzla(worker, fs, None)
    assert r == z3.sat and holds(model, fs)
    # A caller that can do without a model is not given one z3 had to complete; a
    # scalar formula's comes from Bitwuzla's values alone.
    assert check_bitwuzla(worker, fs, None, complete=False) == (z3.sat, None, "")
    r, model, _ = check_bitwuzla(worker, fs[1:2], None, complete=False)
    assert r == z3.sat and holds(model, fs[1:2])
    assert check_bitwuzla(worker, fs + [z3.ULT(i, 100)], None, complete=False)[0] == z3.unsat


_OPS = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, lambda a, b: a & b,
        lambda a, b: a ^ b, z3.UDiv, z3.URem, lambda a, b: a / b, z3.SRem, lambda a, b: a % b,
        lambda a, b: a << (b & 7), z3.LShR]


@st.composite
def _terms(draw, depth: int = 3):
    xs = z3.BitVecs("bw::p bw::q bw::r", 8)
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(xs)) if draw(st.booleans()) else z3.BitVecVal(draw(st.integers(0, 255)), 8)
    op = draw(st.sampled_from(_OPS))
    return op(draw(_terms(depth - 1)), draw(_terms(depth - 1)))


@settings(max_examples=60, deadline=None)
@given(_terms(), _terms(), st.booleans())
def test_agrees_with_z3(worker, lhs, rhs, simplify: bool) -> None:
    """Random bit-vector equations, as built and as z3's simplifier rewrites them."""
    f = lhs == rhs
    if simplify:
        f = z3.simplify(f)
    s = z3.Solver()
    s.add(f)
    expected = s.check()
    out = check_bitwuzla(worker, [f, z3.BoolVal(True)], None)
    if out is None:  # a term z3 printed in its own dialect: z3 answers it, nothing to compare
        return
    assert out[0] == expected
    if expected == z3.sat:
        assert holds(out[1], [f])


def _hard() -> list[z3.BoolRef]:
    x, y, z = z3.BitVecs("bw::hx bw::hy bw::hz", 64)
    return [z3.UGT(x, 0), z3.UGT(y, 0), z3.UGT(z, 0), z3.ULT(x, 1000000), z3.ULT(y, 1000000),
            z3.ULT(z, 1000000), x * x * x + y * y * y == z * z * z]


def test_deadline_gives_unknown(worker) -> None:
    t0 = time.perf_counter()
    r, model, why = check_bitwuzla(worker, _hard(), t0 + 0.3)
    assert r == z3.unknown and model is None and why == "canceled"
    assert time.perf_counter() - t0 < 10


def test_stop_ends_the_query(worker) -> None:
    t0 = time.perf_counter()
    r, _, why = check_bitwuzla(worker, _hard(), None, stop=lambda: time.perf_counter() > t0 + 0.3)
    assert r == z3.unknown and why == "canceled"


class Alarm(BaseException):
    pass


def test_an_exception_raised_while_solving_is_raised_after_the_query(worker) -> None:
    """The time limit's alarm (or Ctrl-C) ends the wait for the answer, and the process."""
    def fire(signum, frame):
        raise Alarm

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    t0 = time.perf_counter()
    try:
        with pytest.raises(Alarm):
            check_bitwuzla(worker, _hard(), None)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - t0 < 10
    before = worker.started  # the interrupted query ended its process: the next starts one
    x = z3.BitVec("bw::after", 8)
    assert check_bitwuzla(worker, [x == 3, z3.BoolVal(True)], None)[0] == z3.sat
    assert worker.started == before + 1


def test_a_dead_process_leaves_the_query_to_z3() -> None:
    x = z3.BitVec("bw::dead", 8)
    with BitwuzlaWorker() as w:
        assert check_bitwuzla(w, [x == 1, z3.BoolVal(True)], None)[0] == z3.sat
        w._proc.kill()
        w._proc.wait()
        assert check_bitwuzla(w, [x == 2, z3.BoolVal(True)], None) is None
        assert w.broken and check_bitwuzla(w, [x == 2, z3.BoolVal(True)], None) is None


BUG = """
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_error(void);
int add(int m, int n) { if (n == 0) return m; return add(m + 1, n - 1); }
int main(void) {
  int m = __VERIFIER_nondet_int(), n = __VERIFIER_nondet_int();
  if (n < 0 || n > 200) return 0;
  if (add(m, n) % 7 == 3 && m > 1000) __VERIFIER_error();
  return 0;
}
"""


def test_check_verdicts_with_and_without_bitwuzla(tmp_path, monkeypatch) -> None:
    """(201 calls deep: an equation past bmc.BITWUZLA_MIN_CONSTRAINTS)"""
    f = tmp_path / "bug.c"
    f.write_text(BUG)
    run = check_run(str(f), checks="error-call", bound=256, prove="none")
    assert run.result.verdict == "false"
    assert run.result.counterexample.replay["status"] == "confirmed"
    assert run.result.stats.bitwuzla_calls >= 1
    monkeypatch.setattr(bitwuzla_backend, "available", lambda: False)
    run = check_run(str(f), checks="error-call", bound=256, prove="none")
    assert run.result.verdict == "false" and run.result.stats.bitwuzla_calls == 0
    assert run.result.counterexample.replay["status"] == "confirmed"


def test_a_session_answers_as_z3_while_its_formula_grows() -> None:
    """A session keeps the formula: each query sends what is new, asked under its own
    assumptions and constraints (which later queries do not see). Its answers are z3's
    on the whole formula; a new process (the last one stopped) starts it again."""
    with BitwuzlaWorker() as w:
        session = BitwuzlaSession(w)
        s = z3.Solver()
        xs = [z3.BitVec(f"bs::x{i}", 16) for i in range(6)]
        f = z3.FP("bs::f", z3.Float32())
        bits = z3.BitVec("bs::bits", 32)
        s.add(bits == z3.fpToIEEEBV(f), z3.fpGT(f, z3.FPVal(1.5, z3.Float32())))
        lits = [z3.Bool(f"bs::l{i}") for i in range(6)]
        asked = 0
        for i, x in enumerate(xs):
            s.add(x == (xs[i - 1] * 3 + 1 if i else z3.Extract(15, 0, bits)), z3.Implies(lits[i], z3.ULT(x, 40)))
            for assumptions, extra in (([lits[i]], []), ([lits[i]], [x == 7]), ([], [z3.Extract(31, 24, bits) == 3]),
                                       ([lits[i], lits[0]], [z3.UGT(x, 5)])):
                got = session.check(list(s.assertions()), extra, assumptions, None)
                s.push()
                s.add(*extra)
                want = s.check(*assumptions)
                s.pop()
                assert got is not None and got[0] == want, (i, assumptions, extra)
                if want == z3.sat:
                    assert holds(got[1], list(s.assertions()) + extra + assumptions)
                asked += 1
            if i == 2:
                w.close()  # the process is gone: the next query starts a new one, and the session again
        assert w.started == 2 and session.usable and asked == 24
        session.close()


def test_an_encoding_moved_past_ends_its_formula_in_the_process(tmp_path) -> None:
    """An analysis that moves on to another encoding (``check``'s next bound) ends the
    last one's session: the process no longer keeps its formula. (Asked through
    ``_bitwuzla`` directly: z3's incremental core answers this program's queries first.)"""
    f = tmp_path / "bug.c"
    f.write_text(BUG)
    program = load_program(str(f), "ILP32", checks=DEFAULT_CHECKS | {"error-call"})
    with BitwuzlaWorker() as w:
        enc = Encoding(program, 256, bitwuzla=w)
        goal = z3.Or(*[s.violation for s in enc.checks(frozenset({"error-call"}))])
        got = enc._bitwuzla([enc.literal(goal)], None)
        assert got is not None and got[0] == z3.sat
        sid = enc._session._id
        assert w.ask("(assert true)", None, None, session=sid, assume=[])["result"] == "sat"  # kept: asked again
        enc.close_session()
        assert w.ask("(assert true)", None, None, session=sid, assume=[]) == {"result": "error", "why": "no such session"}
        assert enc._bitwuzla([enc.literal(goal)], None)[0] == z3.sat  # a later query starts it again
