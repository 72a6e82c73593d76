"""A query stopped from outside (the time limit's alarm, Ctrl-C) has ended before the
exception reaches the caller: the caller's clean-up runs z3 on the same context, and
z3 on two threads at once is a segmentation fault."""

import os
import signal
import threading
import time

import pytest
import z3

from tracelearn.bigstack import run_with_big_stack
from tracelearn.semantics.solving import check_sat


class Alarm(BaseException):
    pass


def _hard() -> z3.Solver:
    x, y, z = z3.BitVecs("x y z", 64)
    s = z3.Solver()
    s.add(z3.UGT(x, 0), z3.UGT(y, 0), z3.UGT(z, 0), z3.ULT(x, 1000000), z3.ULT(y, 1000000), z3.ULT(z, 1000000),
          x * x * x + y * y * y == z * z * z)
    return s


def _z3_threads() -> list[threading.Thread]:
    # threading.enumerate, not is_alive: a thread leaves it only when it has really ended
    return [t for t in threading.enumerate() if t.name.startswith("tracelearn-")]


def _alarm_in(seconds: float):
    def fire(signum, frame):
        raise Alarm
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return old


def _stopped_by_alarm(s: z3.Solver, delay: float) -> None:
    """``check_sat`` of ``s`` stopped by an alarm after ``delay`` seconds."""
    old = _alarm_in(delay)
    try:
        with pytest.raises(Alarm):
            check_sat(s, [], time.perf_counter() + 30)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.5])
def test_an_alarm_during_a_query_returns_only_once_the_query_has_ended(delay):
    s = _hard()
    _stopped_by_alarm(s, delay)
    end = time.monotonic() + 1.0
    while _z3_threads() and time.monotonic() < end:
        time.sleep(0.01)  # the worker has set its flag; its thread is finishing
    assert not _z3_threads()
    s.set(timeout=200)  # (the hard query again, not for the 30 s check_sat allowed it)
    assert s.check() in (z3.sat, z3.unsat, z3.unknown)  # the context is usable at once


def test_an_alarm_during_big_stack_work_stops_the_work_first():
    s = _hard()
    s.set(timeout=30000)
    old = _alarm_in(0.2)
    try:
        with pytest.raises(Alarm):
            run_with_big_stack(lambda: s.check(), z3.main_ctx().interrupt)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    end = time.monotonic() + 1.0
    while _z3_threads() and time.monotonic() < end:
        time.sleep(0.01)
    assert not _z3_threads()


def test_a_sat_given_as_the_time_limit_came_is_checked():
    """z3 5.4 answered ``sat`` after its time limit had ended a check, with a model that
    broke the assertions: such an answer stands only when its model is one."""
    from tracelearn.semantics.solving import trusted

    x = z3.BitVec("x", 8)

    class Late(z3.Solver):
        def __init__(self, model):
            super().__init__()
            self.given = model

        def reason_unknown(self):
            return "timeout"

        def model(self):
            return self.given

    good, bad = z3.Solver(), z3.Solver()
    good.add(x == 5)
    bad.add(x == 6)
    assert good.check() == bad.check() == z3.sat
    late = Late(good.model())
    late.add(z3.UGT(x, 3))
    assert trusted(late, z3.sat, [x != 7]) == z3.sat
    assert trusted(late, z3.sat, [x != 5]) == z3.unknown  # the assumption is broken
    assert trusted(Late(bad.model()), z3.unsat, []) == z3.unsat
    late_bad = Late(bad.model())
    late_bad.add(x == 5)
    assert trusted(late_bad, z3.sat, []) == z3.unknown
    on_time = z3.Solver()
    on_time.add(x == 5)
    assert on_time.check() == z3.sat and trusted(on_time, z3.sat, []) == z3.sat


def test_a_stop_before_the_query_started_leaves_no_interrupt_pending(monkeypatch):
    """The time limit can land before the query's worker thread starts: the stop path
    interrupts the context (2 s) with nothing running, and the next run's first push in
    the same process failed ("push canceled", 24 PAC benchmark runs in a row)."""
    def stopped(self):  # the alarm lands on the line that starts the worker
        raise KeyboardInterrupt

    s = z3.Solver()
    s.add(z3.Int("a") > 1)
    monkeypatch.setattr(threading.Thread, "start", stopped)
    with pytest.raises(KeyboardInterrupt):
        check_sat(s)
    monkeypatch.undo()
    t = z3.Solver()
    t.push()
    t.add(z3.Int("a") == 1)
    assert t.check() == z3.sat


def test_an_interrupt_left_pending_by_a_stopped_query_is_cleared(monkeypatch):
    """The stop path interrupts until the query has ended: one interrupt can land just
    after it ended and stays pending on the context. The next z3 call (a push of
    another run in the same process) must not fail with "push canceled"."""
    import tracelearn.semantics.solving as solving

    real = solving.interrupt_until_done

    def late(finished, interrupt, **kw):  # the last interrupt lands after the query ended
        real(finished, interrupt, **kw)
        interrupt()

    monkeypatch.setattr(solving, "interrupt_until_done", late)
    _stopped_by_alarm(_hard(), 0.1)
    t = z3.Solver()
    t.push()  # the first call after the stop: no pending interrupt
    t.add(z3.Int("a") == 1)
    assert t.check() == z3.sat


def test_the_stream_analyses_solver_lets_a_ctrl_c_through_and_names_the_time_limit():
    """z3's own SIGINT handler turned a Ctrl-C in learn-filter's queries into an unknown
    answer, and the command went on; with it off, the interrupt is raised as the query
    returns (here at its 1 s timeout)."""
    from tracelearn.automata.transducer_paths import solver, undecided

    s = solver()
    s.add(_hard().assertions())
    s.set("timeout", 1000)
    # the signal itself while z3 runs (a Python handler would only run once it returned)
    kill = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    kill.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            s.check()
    finally:
        kill.join()
    assert str(undecided(s, time.perf_counter() - 1)) == "time limit"
    assert str(undecided(s, None)).startswith("the solver could not decide a query")
