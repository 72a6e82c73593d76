"""DOT output and the reader of pv's automata."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tracelearn.automata import (DFA, dominating_edges, dominating_letters, dominator_states, doomed_states,
                                 parse_dot, parse_pv_dot, read_pv_dot, to_dot)

PV_DIR = Path("/work/shared/benchmarks/pv/expected_automata")

# Written in pv's style (cf. _DockingApproachExample_Ext-*.dot): the accepting
# state is q1, the sink (q4) is gone, the box node is not a state, and the initial
# state is the target of the blue arrow from the plaintext node iq0.
PV_STYLE = """digraph finite_automaton {
\tgraph[fontsize=8]
\trankdir=LR;
\tsize=8;

node [shape=rectangle, color = green, label= "Dominating edges: f, Learn_Assert"]; dom_edges;
\tnode [shape=doublecircle, style="", color=green, label = "D"]; q1;
\tnode [shape=circle, style="", color=green, label = ""]; q0;
\tnode [shape=circle, style="", color=green, label = ""]; q2;
\tnode [shape=circle, style="", color=black, label = ""]; q3;
\tnode [shape=plaintext, label="", style=""]; iq0;
\tiq0 -> q0 [color=blue];
\tq0 -> q0 [label="g"];
\tq0 -> q2 [label="f", color = green];
\tq2 -> q1 [label="Learn_Assert", color = green];
\tq0 -> q3 [label="h"];
\tq3 -> q2 [label="f", color = green];
};
"""


def test_pv_style_string():
    pv = read_pv_dot(PV_STYLE)
    d = pv.dfa
    assert pv.state_names == ("q0", "q1", "q2", "q3")
    assert d.initial == 0 and d.accepting == {1}
    assert d.alphabet == ("g", "f", "Learn_Assert", "h")
    assert d.accepts(("g", "g", "f", "Learn_Assert")) and d.accepts(("h", "f", "Learn_Assert"))
    assert not d.accepts(("h", "h", "f", "Learn_Assert")) and not d.accepts(("f",))
    assert pv.dominating_letters == ("f", "Learn_Assert")
    assert pv.green_states == {0, 1, 2}
    assert dominating_letters(d) == ("f", "Learn_Assert")
    assert dominator_states(d) == pv.green_states
    assert {e for e in d.edges() if e[1] in dominating_letters(d)} == pv.green_edges
    assert doomed_states(d) == {1, 2, 3}  # q0 can loop on g forever


def test_initial_state_need_not_be_q0():
    text = PV_STYLE.replace("iq0 -> q0", "iq0 -> q3")
    assert parse_pv_dot(text).initial == 3


def test_unquoted_attributes_and_single_state():
    text = """digraph finite_automaton {
node [shape=rectangle, color = green, label= "Dominating edges: "]; dom_edges;
node [shape=circle, style="", color=green, label = D]; q0;
node [shape=plaintext, label="", style=""]; iq0;
iq0 -> q0 [color=blue];
q0 -> q0 [label="a"];
q0 -> q0 [label="Learn_Assert"];
};"""
    pv = read_pv_dot(text)
    assert pv.dfa.num_states == 1 and pv.dfa.is_empty() and pv.dominating_letters == ()


def test_alphabet_argument():
    d = parse_pv_dot(PV_STYLE, alphabet=("f", "g", "h", "Learn_Assert", "unused"))
    assert d.alphabet[-1] == "unused" and d.accepts(("f", "Learn_Assert"))
    with pytest.raises(ValueError):
        parse_pv_dot(PV_STYLE, alphabet=("f",))


def test_malformed_files():
    with pytest.raises(ValueError):
        parse_pv_dot("digraph g { a -> b; }")  # no circle nodes
    with pytest.raises(ValueError):
        parse_pv_dot('digraph g { node [shape=circle]; q0; q1; q0 -> q1 [label="a"]; }')  # no initial arrow


def _random_dfa(rng: random.Random) -> DFA:
    alpha = ("a", "b b", 'c"q\\')[: rng.randint(1, 3)]
    n = rng.randint(1, 6)
    trans = {(s, a): rng.randrange(n) for s in range(n) for a in alpha if rng.random() < 0.7}
    return DFA(alpha, n, rng.randrange(n), frozenset(q for q in range(n) if rng.random() < 0.4), trans)


@pytest.mark.parametrize("seed", range(30))
def test_to_dot_reads_back(seed):
    d = _random_dfa(random.Random(seed))
    for marks in (False, True):
        text = to_dot(d, merge_letters=not marks, mark_dominating=marks, mark_doomed=marks)
        back = parse_pv_dot(text, alphabet=d.alphabet)
        assert back.equivalence_witness(d) is None
        assert back.num_states == len(d.live_states() | {d.initial})


def test_to_dot_marks():
    d = DFA(("g", "f", "assert"), 4, 0, frozenset({2}),
            {(0, "g"): 0, (0, "f"): 1, (1, "assert"): 2, (1, "g"): 3, (3, "g"): 3})
    text = to_dot(d, mark_dominating=True, mark_doomed=True)
    assert "q3" not in text  # the dead sink is hidden
    assert '__init -> q0' in text and "q2 [shape=doublecircle" in text
    g = parse_dot(text)
    marked = {(a, b, x["label"]) for a, b, x in g.edges if x.get("color") == "green"}
    assert marked == {("q0", "q1", "f"), ("q1", "q2", "assert")}
    assert "style" in g.nodes["q1"] and "style" not in g.nodes["q0"]
    merged = to_dot(DFA(("a", "b"), 2, 0, frozenset({1}), {(0, "a"): 1, (0, "b"): 1}))
    assert 'label="a, b"' in merged
    assert to_dot(d, hide_dead=False).count("q3 ->") == 1


def _pv_files() -> list[Path]:
    return sorted(PV_DIR.glob("*.dot")) if PV_DIR.is_dir() else []


@pytest.mark.skipif(not PV_DIR.is_dir(), reason="pv's reference automata are not available")
def test_pv_reference_automata():
    files = _pv_files()
    assert len(files) > 100
    chain = read_pv_dot((PV_DIR / "_merge_sort_false-1-8.dot").read_text()).dfa
    assert chain.words(10) == [("inspect_before", "inspect_after", "Learn_Assert")]
    biggest = max(files, key=lambda p: p.stat().st_size)
    big = read_pv_dot(biggest.read_text()).dfa
    assert big.num_states >= 30 and not big.is_empty()
    agree = 0
    for path in files:
        pv = read_pv_dot(path.read_text())
        d = pv.dfa
        assert d.initial == pv.state_names.index("q0")
        assert len(d.accepting) <= 1
        # The sink is removed: every state is live, unless the language is empty.
        if not d.is_empty():
            assert d.live_states() == set(d.states)
            # pv draws its dominator states green.
            assert dominator_states(d) == pv.green_states, path.name
            assert set(dominating_edges(d)) <= {e for e in d.edges() if e[1] in pv.dominating_letters}
        # pv's box lists every dominating letter; where it lists more, the extra
        # letters are avoidable: some accepted word does not contain them.
        ours = set(dominating_letters(d))
        assert ours <= set(pv.dominating_letters), path.name
        agree += ours == set(pv.dominating_letters)
        for a in set(pv.dominating_letters) - ours:
            without = DFA(d.alphabet, d.num_states, d.initial, d.accepting,
                          {k: t for k, t in d.transitions.items() if k[1] != a})
            assert not without.is_empty(), (path.name, a)
        # Green edges are exactly the edges whose letter is in the box.
        assert pv.green_edges == {e for e in d.edges() if e[1] in pv.dominating_letters}
    assert agree >= 0.8 * len(files)
