"""The transducers' algebra (Sigma* Sec. 4): composition against running the two
transducers one after the other, equivalence with delayed outputs and shortest
separating inputs (checked by enumerating every shorter input), union and
single-valuedness, totality; and a composition against the same composition learned
from C (two independent constructions of one function)."""

from __future__ import annotations

import functools
import itertools
import time
from pathlib import Path

import pytest
import z3
from hypothesis import given, settings, strategies as st

from tracelearn.analyses.streams.driver import LearnOptions, learn
from tracelearn.automata.transducer import FinalMove, Move, Transducer
from tracelearn.automata.transducer_algebra import (NotComposable, compose, equivalence, identity, single_valued,
                                                    totality, union)
from tracelearn.frontend.lower import load_program

STREAMS = Path(__file__).parent / "c" / "streams"
W0, W1 = z3.BitVec("w0", 8), z3.BitVec("w1", 8)
TRUE = z3.BoolVal(True)


def _x(w: z3.BitVecRef = W0) -> z3.BitVecRef:
    return z3.SignExt(24, w)


def _c(v: int) -> z3.BitVecRef:
    return z3.BitVecVal(v, 32)


@functools.cache
def _learned(name: str, function: str) -> Transducer:
    r = learn(load_program(str(STREAMS / name), entry=function), LearnOptions(function))
    assert r.complete, r.reason
    return r.transducer


def echo_then(end: int) -> Transducer:
    """Copies its input, then writes ``end``."""
    return Transducer(8, 1, 0, [Move(0, TRUE, (_x(),), 0)], [FinalMove(0, TRUE, (_c(end),))])


def late_echo_then(end: int) -> Transducer:
    """The same function, each element written a step late (lookback 1)."""
    return Transducer(8, 2, 0, [Move(0, TRUE, (), 1), Move(1, TRUE, (_x(W1),), 1)],
                      [FinalMove(0, TRUE, (_c(end),)), FinalMove(1, TRUE, (_x(W1), _c(end)))])


def drop(v: int) -> Transducer:
    """Copies its input except the elements equal to ``v``."""
    return Transducer(8, 1, 0, [Move(0, W0 != v, (_x(),), 0), Move(0, W0 == v, (), 0)], [])


def doubler() -> Transducer:
    """Writes every element twice, and 7 first."""
    return Transducer(8, 1, 0, [Move(0, TRUE, (_x(), _x()), 0)], [], (7,))


def sum_with_previous() -> Transducer:
    """Writes each element plus the one before (the first as it is), and at the end the
    last element, when it is not 0: lookback 1 and a final move reading the window."""
    return Transducer(8, 2, 0, [Move(0, TRUE, (_x(),), 1), Move(1, TRUE, (_x() + _x(W1),), 1)],
                      [FinalMove(1, W1 != 0, (_x(W1),))])


def small_values() -> Transducer:
    """Writes x / 4 (a value of 6 bits), and 100 - x when x is 0."""
    return Transducer(8, 1, 0, [Move(0, W0 != 0, (z3.SignExt(24, W0 / 4),), 0),
                                Move(0, W0 == 0, (_c(100),), 0)], [])


ALPHABET = [0, 1, 5, 7, 60, 62, 38, -3, 127, -128]
inputs = st.lists(st.sampled_from(ALPHABET) | st.integers(-128, 127), max_size=8)


def _composed_cases() -> list[tuple[str, Transducer, Transducer]]:
    return [("double then sum", doubler(), sum_with_previous()),
            ("small then sum", small_values(), sum_with_previous()),
            ("late echo then sum", late_echo_then(5), sum_with_previous()),
            ("late echo then drop", late_echo_then(5), drop(5)),
            ("sum then drop", small_values(), drop(1))]


@pytest.mark.parametrize("name,f,g", _composed_cases(), ids=[c[0] for c in _composed_cases()])
@settings(max_examples=150, deadline=None)
@given(x=inputs)
def test_a_composition_writes_what_the_two_write_one_after_the_other(name, f, g, x):
    c = _cached_compose(name)
    assert c.run(x) == g.run(f.run(x))


@functools.cache
def _cached_compose(name: str) -> Transducer:
    _, f, g = next(case for case in _composed_cases() if case[0] == name)
    return compose(f, g)


def test_composition_refuses_what_it_cannot_say():
    # g looks back one element, f writes nothing for as long as the input is 5s
    with pytest.raises(NotComposable, match="window would exceed"):
        compose(drop(5), sum_with_previous())
    # f writes ints that g, an 8-bit filter, never read
    with pytest.raises(NotComposable, match="outside the second's 8-bit elements"):
        compose(sum_with_previous(), drop(1))
    with pytest.raises(NotComposable, match="deterministic"):
        compose(union(drop(1), drop(2)), drop(1))


def test_an_element_written_a_step_later_is_still_the_same_function():
    r = equivalence(late_echo_then(-1), echo_then(-1))
    assert r.status == "equal", r.reason
    other = equivalence(late_echo_then(-1), echo_then(-2))
    assert other.status == "different" and other.witness == []


def _shortest_separating(a: Transducer, b: Transducer, longest: int) -> list[int] | None:
    for n in range(longest + 1):
        for w in itertools.product(ALPHABET, repeat=n):
            if a.outputs(list(w)) != b.outputs(list(w)):
                return list(w)
    return None


@pytest.mark.parametrize("a,b", [
    (late_echo_then(-1), drop(5)),
    (drop(5), drop(7)),
    (compose(doubler(), sum_with_previous()), compose(doubler(), drop(3))),
    (sum_with_previous(), echo_then(0)),
], ids=["late-echo/drop", "drop5/drop7", "compositions", "sum/echo"])
def test_the_separating_input_is_a_shortest_one(a, b):
    r = equivalence(a, b)
    assert r.status == "different"
    assert a.run(r.witness) != b.run(r.witness)
    shortest = _shortest_separating(a, b, len(r.witness))
    assert shortest is not None and len(shortest) == len(r.witness)


def test_union_runs_both_and_single_valuedness_finds_two_outputs():
    a, b = late_echo_then(-1), drop(5)
    u = union(a, b)
    for w in ([], [5], [1, 5, 2], [5, 5]):
        assert u.outputs(w) == a.outputs(w) | b.outputs(w)
    r = single_valued(u)
    assert r.status == "different" and len(u.outputs(r.witness)) == 2
    assert single_valued(union(late_echo_then(-1), echo_then(-1))).status == "equal"
    # a deterministic and a nondeterministic transducer: equal when their union is single-valued
    assert equivalence(echo_then(-1), union(late_echo_then(-1), echo_then(-1))).status == "equal"
    assert equivalence(echo_then(-1), u).status == "different"


def test_a_nondeterministic_transducer_reads_back_from_its_document():
    u = union(late_echo_then(-1), drop(5))
    back = Transducer.from_json(u.to_json())
    assert back.nondeterministic
    for w in ([], [5], [1, 5, 2]):
        assert back.outputs(w) == u.outputs(w)


def test_totality_gives_a_shortest_input_outside_the_domain():
    partial = Transducer(8, 2, 0, [Move(0, TRUE, (_x(),), 1), Move(1, W0 != W1, (_x(),), 1)], [])
    r = totality(partial)
    assert r.status == "partial" and len(r.witness) == 2 and r.witness[0] == r.witness[1]
    assert partial.run(r.witness) is None
    assert totality(sum_with_previous()).status == "total"
    assert totality(_learned("escape.c", "html_escape")).status == "total"


def test_composed_escapers_equal_the_pipeline_learned_from_c(tmp_path):
    """html_escape twice: the composition of its transducer with itself, and the C
    pipeline of its transducer feeding its code, learned and proved; the two are equal,
    and both differ from html_escape on a shortest input."""
    from tracelearn.api.filter_models import pipeline_c
    he = _learned("escape.c", "html_escape")
    algebra = compose(he, he)
    src = tmp_path / "pipeline.c"
    src.write_text(pipeline_c(he, str(STREAMS / "escape.c"), "html_escape"))
    r = learn(load_program(str(src), entry="__tl_pipeline"), LearnOptions("__tl_pipeline"))
    assert r.complete, r.reason
    assert equivalence(algebra, r.transducer).status == "equal"
    d = equivalence(algebra, he)
    assert d.status == "different" and len(d.witness) == 1


def test_a_delay_filter_composes_with_an_escaper_both_ways():
    delay, he = _learned("delay.c", "delay"), _learned("escape.c", "html_escape")
    for f, g in ((delay, he), (he, delay)):
        c = compose(f, g)
        for w in ([], [60], [60, 38, 1], [62, 62, 0, 60]):
            assert c.run(w) == g.run(f.run(w))
    assert equivalence(delay, identity(8)).status == "different"


def test_a_move_reading_before_the_start_is_not_enabled_whatever_its_guard_says():
    """``true || x[-1] < 0`` reads x[-1]: not enabled on the first element, in a run as in
    the operations (a fuzzer found run and composition disagreeing here)."""
    f = Transducer(8, 1, 0, [Move(0, z3.Or(TRUE, W1 < 0), (_x(),), 0)], [])
    assert f.run([5]) is None and f.run([]) == [] and f.outputs([5]) == set()
    c = compose(f, echo_then(3))
    for w in ([], [5], [5, 6]):
        assert c.run(w) == (None if f.run(w) is None else echo_then(3).run(f.run(w)))
    assert totality(f).witness == [0]


def test_a_difference_behind_a_path_that_cannot_reach_it_is_still_found():
    """The pair of states is first reached along a path on which the difference is
    infeasible (x < 1 there, x[-1] >= 2 needed): the search takes that pair again along
    other paths, and finds the input instead of answering unknown (a fuzzer's case)."""
    a = Transducer(8, 1, 0, [Move(0, W0 < 1, (_c(5),), 0), Move(0, TRUE, (_x(W1) - 1,), 0)], [], (1, -1))
    b = Transducer(8, 1, 0, [Move(0, W0 < 1, (_c(5),), 0), Move(0, W1 >= 2, (_c(5),), 0),
                             Move(0, W1 == W1, (_x(W1) - 1,), 0)], [], (1, -1))
    r = equivalence(a, b)
    assert r.status == "different" and a.run(r.witness) != b.run(r.witness) and len(r.witness) == 3


def test_a_nondeterministic_operand_with_two_outputs_is_not_equal_to_anything():
    """Equivalence with a nondeterministic transducer is the union's single-valuedness:
    pairs of runs of one operand count too (a review's case: ``b`` has no run at all)."""
    a = Transducer(8, 1, 0, [Move(0, TRUE, (_x(),), 0), Move(0, TRUE, (_c(0),), 0)], [], nondeterministic=True)
    b = Transducer(8, 1, 0, [], [])
    r = equivalence(a, b)
    assert r.status == "different" and len(a.outputs(r.witness)) == 2


def test_union_keeps_every_output_of_a_nondeterministic_operand_on_no_input():
    nd = Transducer(8, 1, 0, [], [FinalMove(0, TRUE, (_c(1),)), FinalMove(0, TRUE, (_c(2),))],
                    nondeterministic=True)
    assert union(nd, echo_then(9)).outputs([]) == {(1,), (2,), (9,)}


def test_the_witness_of_a_union_is_the_shortest_over_all_its_pairs_of_runs():
    """``b`` is itself not single-valued (2 or 3 per element: the shortest such input is
    [0]), but ``a`` writes nothing and ``b`` a 0 at the end of the empty input: that
    mixed pair separates them on a shorter input, which the answer gave (a review's)."""
    true = z3.BoolVal(True)
    c = lambda v: z3.BitVecVal(v, 32)  # noqa: E731
    a = Transducer(4, 1, 0, [Move(0, true, (), 0)], [])
    b = Transducer(4, 1, 0, [Move(0, true, (c(2),), 0), Move(0, true, (c(3),), 0)],
                   [FinalMove(0, true, (c(0),))], nondeterministic=True)
    assert single_valued(b).witness == [0]
    r = equivalence(a, b)
    assert r.status == "different" and r.witness == [], r
    assert a.outputs([]) != b.outputs([])


def test_a_difference_behind_a_window_condition_is_found_and_shortest():
    """Two lookback-1 transducers that differ only after ``-1, 0``: the pair of states is
    met along ``[-1]``, where the move on ``x[-1] == 0`` has no input, and along
    ``[-1, 0]``, where it has. A node keyed by the states alone searched one of them (a
    review's: unknown after its bound); pruning moves that no input takes along that one
    path made it answer "equal". Keyed with what the path says of the window, the two
    are two nodes, and the shortest separating input (3 elements, enumerated) is found."""
    w0, w1 = z3.BitVec("w0", 4), z3.BitVec("w1", 4)

    def t(out: tuple) -> Transducer:
        return Transducer(4, 2, 0, [Move(0, w0 == -1, (), 1), Move(1, w1 != 0, (), 1),
                                    Move(1, w1 == 0, out, 1)], [])
    a, b = t(()), t((z3.SignExt(28, w1),))
    assert a.run([-1, 0, 5]) != b.run([-1, 0, 5])
    shortest = next(len(w) for n in range(4) for w in itertools.product(range(-8, 8), repeat=n)
                    if a.run(list(w)) != b.run(list(w)))
    r = equivalence(a, b, max_pairs=200)
    assert r.status == "different", r
    assert a.run(r.witness) != b.run(r.witness) and len(r.witness) == shortest == 3


def test_a_pair_met_with_a_loose_context_is_searched_along_every_path_as_long():
    """``[x != 3, x]`` and ``[3, 3]`` reach state 2 with one context, ``x[-1] == x[-2]``:
    the condition on the dropped element (``== 3``) was tied to the kept one. Only the
    second path takes the move on ``x[-1] == 3``, where the two differ; the first was
    the one kept, and the witness was a longer input (a review's). Such a context is
    loose, and the other paths of the first one's length are searched too."""
    w0, w1 = z3.BitVec("w0", 3), z3.BitVec("w1", 3)

    def t(out: int) -> Transducer:
        return Transducer(3, 3, 0, [
            Move(0, w0 != 3, (), 1), Move(0, w0 == 3, (), 1),
            Move(1, w0 == w1, (), 2), Move(1, w0 != w1, (), 0),
            Move(2, w1 == 3, (_c(out),), 2), Move(2, w1 != 3, (), 2)], [])
    a, b = t(1), t(2)
    shortest = next(len(w) for n in range(6) for w in itertools.product(range(-4, 4), repeat=n)
                    if a.run(list(w)) != b.run(list(w)))
    r = equivalence(a, b)
    assert r.status == "different" and a.run(r.witness) != b.run(r.witness), r
    assert len(r.witness) == shortest == 3


def test_single_valuedness_follows_only_the_runs_an_input_takes():
    """A review's random 2-state transducer (lookback 2): after two zeros the context
    says ``x[-1] == x[-2] == 0``, so the moves on ``x[-2] < 0`` and ``x[-2] == 3`` are
    never taken and every input has one run. Keyed by the states alone, the search took
    those moves and grew delayed outputs until its 60 s limit; now it says "equal" at
    once, which enumeration bears out."""
    w0, w1, w2 = (z3.BitVec(f"w{j}", 4) for j in range(3))
    sx = lambda t: z3.SignExt(28, t)  # noqa: E731
    t = Transducer(4, 2, 0, [
        Move(0, w2 < 0, (sx(w2 + w0),), 1), Move(0, w0 == 0, (), 0),
        Move(0, z3.And(w1 < 1, w2 == 3), (sx(w2), _c(-1)), 0),
        Move(1, z3.And(w1 < 15, w0 != 3), (sx(w0), sx(w0)), 0), Move(1, w1 != 0, (_c(0),), 1),
        Move(1, w0 < 0, (_c(3),), 1)],
        [FinalMove(0, z3.Or(w1 == w2, w2 != 0), (_c(1), _c(3))), FinalMove(0, w2 != 0, (_c(1),))],
        nondeterministic=True)
    r = single_valued(t, deadline=time.perf_counter() + 60)
    assert r.status == "equal", r
    assert not any(len(t.outputs(list(w))) > 1 for n in range(4) for w in itertools.product(range(-8, 8), repeat=n))


UNESCAPE_ALPHABET = [ord(c) for c in "&amp;lt"] + [0, -1]


def test_a_composition_forgets_the_window_the_second_filter_never_reads_again():
    """unescape_lt_amp after itself: the second decoder's window holds the first's
    outputs only while it waits on a '&' (its other states read x alone). Kept in
    every composed state, those outputs moved a place back at each of the first's silent
    steps ("&amp;" writes one element in five) until the window passed 16 and the
    composition was refused; forgotten where no run reads them, it is built, and it is
    the pipeline, run."""
    u = _learned("pipes.c", "unescape_lt_amp")
    c = compose(u, u)
    for n in range(6):
        for w in itertools.product(UNESCAPE_ALPHABET, repeat=n):
            assert c.run(list(w)) == u.run(u.run(list(w))), w
    rng = __import__("random").Random(3)
    for _ in range(300):
        w = [rng.choice(UNESCAPE_ALPHABET) for _ in range(rng.randrange(6, 24))]
        assert c.run(w) == u.run(u.run(w)), w
    d = equivalence(c, u)
    assert d.status == "different" and d.witness == [38, 38]


def test_a_composition_bounded_in_length_is_exact_there_and_compares_only_there():
    """rl_decode3 after itself is not a transducer with lookback (the second decoder
    holds a count while the first writes nothing for any number of (0, x) pairs). On
    inputs of up to ``bound`` elements it is; a separating input found there is a
    shortest, and finding none is "unknown", never "equal"."""
    r = _learned("pipes.c", "rl_decode3")
    with pytest.raises(NotComposable, match="window would exceed"):
        compose(r, r)
    small = [0, 1, 2, 3, 5]
    for bound in (3, 5):
        c = compose(r, r, bound=bound)
        for n in range(bound + 2):
            for w in itertools.product(small, repeat=n):
                assert c.run(list(w)) == (r.run(r.run(list(w))) if n <= bound else None), w
    c = compose(r, r, bound=4)
    d = equivalence(c, r, max_length=4)
    assert d.status == "different" and d.witness is not None and len(d.witness) == 2
    assert c.run(d.witness) != r.run(d.witness)
    same = equivalence(c, compose(r, r, bound=4), max_length=4)
    assert same.status == "unknown" and same.reason == "no input of up to 4 elements separates them"


def test_equalities_of_a_silent_step_keep_the_composition_and_its_comparison_finite():
    """squeeze_from_zero after itself: the second filter's x[-1] is the last element
    the first wrote, further back with each repeat; the first's silent step says
    x == x[-1], so it is x[-1] still (the composition has 3 states, not a window past
    16). Compared with the filter, a path of zeros says x[-1] == x[-2] and x[-2] == 0;
    the second leaves the window, and kept as x[-1] == 0 through the first, it rules
    out the move on a non-repeat zero that no input takes: "equal", proved."""
    s = _learned("pipes.c", "squeeze_from_zero")
    c = compose(s, s)
    assert c.states <= 4
    for n in range(6):
        for w in itertools.product([0, 1, -1], repeat=n):
            assert c.run(list(w)) == s.run(s.run(list(w))) == s.run(list(w)), w
    r = equivalence(c, s)
    assert r.status == "equal", r
