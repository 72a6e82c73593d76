"""What the automaton builders (DOT, SVG, HTML) need of an analysis' result: any
analysis whose result has these members gets the drawings and the page with no new
glue (the language of error's ``ExplainResult`` is the first)."""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from ..automata.dfa import DFA
from ..ir.program import Program, SourceLoc


class LetterRow(Protocol):
    name: str
    kind: str
    text: str  # what the letter stands for
    locs: list[SourceLoc]


class EdgeWitnessRow(Protocol):
    source: int
    letter: str
    target: int
    word: tuple[str, ...]
    inputs: list


@runtime_checkable
class AutomatonResult(Protocol):
    automaton: DFA  # as the user sees it (no sink)
    program: Program  # for the source listing
    edge_witnesses: Sequence[EdgeWitnessRow]

    def title(self) -> str: ...

    def summary(self) -> str: ...  # the bounds and what the automaton guarantees

    def legend(self) -> str: ...  # what the marked edges and states mean

    def letter_table(self) -> Sequence[LetterRow]: ...

    def marked_edges(self) -> set[tuple[int, str, int]]: ...

    def marked_states(self) -> frozenset[int]: ...

    def marked_letters(self) -> set[str]: ...
