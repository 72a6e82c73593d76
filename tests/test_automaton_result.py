"""The report builders take any result with the members of ``AutomatonResult``: the
language of error's result is one, and a new analysis' result gets the page and the
drawing with no new glue."""

from __future__ import annotations

from dataclasses import dataclass, field

import tracelearn
from tracelearn.api.explaining import arguments, learn_file
from tracelearn.automata.dfa import DFA
from tracelearn.frontend.lower import load_program
from tracelearn.ir.program import SourceLoc
from tracelearn.report.automaton_result import AutomatonResult
from tracelearn.report.html_report import automaton_dot, html_report

FIG2 = str(__import__("pathlib").Path(tracelearn.__file__).parent / "examples" / "fig2.c")


def test_the_language_of_error_result_is_an_automaton_result():
    result, _ = learn_file(arguments("explain", [FIG2], {}), FIG2)
    assert isinstance(result, AutomatonResult)
    page = html_report(result, FIG2, {"stats": {}})
    for row in result.letter_table():
        assert f"<td>{row.name}</td>" in page or f"<td class='dom'>{row.name}</td>" in page


@dataclass
class _Row:
    name: str
    kind: str
    text: str
    locs: list = field(default_factory=list)


@dataclass
class _OtherAnalysis:
    """A result of some other analysis, written only against the protocol."""

    automaton: DFA
    program: object
    edge_witnesses: list = field(default_factory=list)

    def title(self) -> str:
        return "Decision language"

    def summary(self) -> str:
        return "learned from 3 samples"

    def legend(self) -> str:
        return "the marked state is the error"

    def letter_table(self):
        return [_Row("d0", "decision", "x > 0", [SourceLoc(FIG2, 3, 1)]), _Row("d1", "decision", "y < 2")]

    def marked_edges(self):
        return {(0, "d1", 1)}

    def marked_states(self):
        return frozenset({1})

    def marked_letters(self):
        return {"d1"}


def test_another_analysis_gets_page_and_drawing_without_glue():
    dfa = DFA(("d0", "d1"), 2, 0, {1}, {(0, "d0"): 0, (0, "d1"): 1})
    r = _OtherAnalysis(dfa, load_program(FIG2))
    assert isinstance(r, AutomatonResult)
    page = html_report(r, FIG2, {"stats": {"samples": 3}})
    assert "<h1>Decision language: " in page and "learned from 3 samples" in page
    assert "<td class='dom'>d1</td>" in page and "<a href='#L3'>line 3</a>" in page
    dot = automaton_dot(r)
    assert "d1" in dot and "d0" in dot
