"""Comparing program versions by their learned languages (pv Sec. 5): the
behaviours only in one version, and a merge's behaviours in neither branch."""

from __future__ import annotations

from dataclasses import dataclass

from ...automata.dfa import DFA


@dataclass
class Difference:
    name: str
    description: str
    dfa: DFA  # minimal, sink removed

    @property
    def empty(self) -> bool:
        return self.dfa.is_empty()


def _clean(d: DFA) -> DFA:
    return d.minimize().remove_sink()


def diff(old: DFA, new: DFA) -> list[Difference]:
    return [
        Difference("only_old", "behaviour of OLD that NEW does not have", _clean(old.difference(new))),
        Difference("only_new", "behaviour of NEW that OLD does not have", _clean(new.difference(old))),
        Difference("symmetric", "behaviour in exactly one version", _clean(old.symmetric_difference(new))),
    ]


def merge_check(base: DFA, a: DFA, b: DFA, merged: DFA) -> list[Difference]:
    """Figs. 12-14: what the merge does that branch A, branch B, or both do not."""
    return [
        Difference("not_in_a", "behaviour of MERGED not in branch A", _clean(merged.difference(a))),
        Difference("not_in_b", "behaviour of MERGED not in branch B", _clean(merged.difference(b))),
        Difference("in_neither", "behaviour of MERGED in neither branch", _clean(merged.difference(a.union(b)))),
        Difference("not_in_base", "behaviour of MERGED not in BASE", _clean(merged.difference(base))),
    ]
