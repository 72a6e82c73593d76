"""Pre-images of output languages under learned transducers (Sigma* Sec. 4): the
pre-image automaton against running the transducer on random inputs, its shortest
accepted input against the specialised output-inclusion search (``writes``) and
against the filter run in the interpreter, and a language that is no pattern search."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
import z3

from tracelearn.analyses.streams.driver import LearnOptions, learn
from tracelearn.analyses.streams.properties import writes
from tracelearn.analyses.streams.replay import FilterReplay
from tracelearn.automata.preimage import preimage, shortest_accepted
from tracelearn.automata.symbolic_automaton import AutomatonMove, SymbolicAutomaton
from tracelearn.automata.transducer import OUT_BITS, Transducer
from tracelearn.frontend.lower import load_program

STREAMS = Path(__file__).parent / "c" / "streams"
TRUE = z3.BoolVal(True)


@functools.cache
def _learned(name: str, function: str) -> Transducer:
    r = learn(load_program(str(STREAMS / name), entry=function), LearnOptions(function, max_depth=12))
    assert r.complete or r.exact_up_to, r.reason
    return r.transducer


def _occurs(p: list[int], out: list[int] | None) -> bool:
    return out is not None and any(out[i:i + len(p)] == p for i in range(len(out) - len(p) + 1))


def _inputs(pool: list[int], count: int = 300, seed: int = 1) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.choice(pool) if rng.random() < 0.6 else rng.randint(-128, 127) for _ in range(rng.randint(0, 8))]
            for _ in range(count)]


@pytest.mark.parametrize("name,function,pattern", [
    ("escape.c", "html_escape", "&lt;"), ("escape.c", "html_escape", "<"), ("escape.c", "html_escape", "&amp;lt;"),
    ("escape.c", "html_escape", "a<"), ("fig2.c", "fig2", [0, 0, 5]), ("delay.c", "delay", [5, -1]),
    ("delay.c", "delay", [-1, 5])])
def test_the_preimage_of_a_pattern_is_what_the_transducer_writes_it_on(name, function, pattern):
    pat = [ord(c) for c in pattern] if isinstance(pattern, str) else pattern
    t = _learned(name, function)
    pre = preimage(t, SymbolicAutomaton.containing(pat, OUT_BITS))
    for v in _inputs(sorted(set(pat)) + [97, 0, 10, 60, 38]):
        assert pre.accepts(v) == _occurs(pat, t.run(v)), v
    found = shortest_accepted(pre)
    search = writes(t, pat)
    assert found.status in ("empty", "nonempty")
    assert (found.status == "nonempty") == (search.status == "writes")
    if found.witness is not None:
        assert len(found.witness) == len(search.witness)
        replay = FilterReplay(str(STREAMS / name), function, 8)
        try:
            assert _occurs(pat, replay.interpret(found.witness))  # the filter writes it
        finally:
            replay.close()


def test_the_preimage_of_a_language_that_is_no_pattern():
    """Outputs of even length, and outputs with no '<': a two-state and a one-state
    automaton with a guard."""
    t = _learned("escape.c", "html_escape")
    o = z3.BitVec("w0", OUT_BITS)
    even = SymbolicAutomaton(OUT_BITS, 2, (0,), [AutomatonMove(0, TRUE, 1), AutomatonMove(1, TRUE, 0)], {0: TRUE})
    pre = preimage(t, even)
    inputs = _inputs([60, 38, 97, 34])
    for v in inputs:
        assert pre.accepts(v) == (len(t.run(v)) % 2 == 0), v
    assert shortest_accepted(pre).witness == []
    odd = SymbolicAutomaton(OUT_BITS, 2, (0,), even.moves, {1: TRUE})
    w = shortest_accepted(preimage(t, odd)).witness
    assert w is not None and len(w) == 1 and len(t.run(w)) % 2 == 1
    no_lt = SymbolicAutomaton(OUT_BITS, 1, (0,), [AutomatonMove(0, o != ord("<"), 0)], {0: TRUE})
    pre = preimage(t, no_lt)
    assert all(pre.accepts(v) for v in inputs)  # html_escape never writes '<'


def test_a_preimage_needs_an_automaton_over_the_outputs():
    t = _learned("escape.c", "html_escape")
    with pytest.raises(ValueError, match="32-bit"):
        preimage(t, SymbolicAutomaton.containing([60], 8))


def test_a_preimage_takes_the_first_enabled_end_as_the_run_does():
    """A deterministic transducer whose moves do not overlap but whose final moves do
    (a review's): the run takes the first end, writing 1, so "contains a 2" holds only
    where the input has one. The pre-image took every enabled end (the exclusivity of
    the moves was taken for the ends'), and said the empty input writes a 2."""
    from tracelearn.automata.transducer import FinalMove, Move
    w0 = z3.BitVec("w0", 8)
    one, two = z3.BitVecVal(1, OUT_BITS), z3.BitVecVal(2, OUT_BITS)
    t = Transducer(8, 1, 0, [Move(0, TRUE, (z3.SignExt(24, w0),), 0)],
                   [FinalMove(0, TRUE, (one,)), FinalMove(0, TRUE, (two,))])
    contains_two = SymbolicAutomaton.containing([2], OUT_BITS)
    pre = preimage(t, contains_two)
    for v in ([], [5], [2], [5, 2], [1, 1]):
        assert pre.accepts(v) == contains_two.accepts(t.run(v)) == (2 in v), v
    assert shortest_accepted(pre).witness == [2]
