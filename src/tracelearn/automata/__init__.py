"""Finite automata: DFAs, their post-processing and DOT input/output."""

from .analysis import dominating_edges, dominating_letters, dominator_states, doomed_states
from .dfa import DFA, Edge, Word
from .dot import PvAutomaton, parse_dot, parse_pv_dot, read_pv_dot, to_dot

__all__ = [
    "DFA", "Edge", "Word", "PvAutomaton",
    "dominating_edges", "dominating_letters", "dominator_states", "doomed_states",
    "parse_dot", "parse_pv_dot", "read_pv_dot", "to_dot",
]
