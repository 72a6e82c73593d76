"""Nondeterministic finite automata: what NL* learns (residual NFAs, which can be
exponentially smaller than the minimal DFA). The rest of the toolkit speaks DFAs;
``determinize`` is the bridge (subset construction, reachable subsets only)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .dfa import DFA


@dataclass(frozen=True)
class NFA:
    alphabet: tuple[str, ...]
    num_states: int
    initial: frozenset[int]
    accepting: frozenset[int]
    transitions: dict[tuple[int, str], frozenset[int]] = field(default_factory=dict)

    def step(self, states: frozenset[int], letter: str) -> frozenset[int]:
        out: set[int] = set()
        for q in states:
            out |= self.transitions.get((q, letter), frozenset())
        return frozenset(out)

    def accepts(self, word: Iterable[str]) -> bool:
        cur = self.initial
        for a in word:
            cur = self.step(cur, a)
            if not cur:
                return False
        return bool(cur & self.accepting)

    def determinize(self, limit: int | None = None) -> DFA:
        """The subset construction over the reachable subsets (the empty set is the
        sink); state 0 is the initial subset. More than ``limit`` subsets: ValueError."""
        index = {self.initial: 0}
        order = [self.initial]
        trans: dict[tuple[int, str], int] = {}
        i = 0
        while i < len(order):
            cur = order[i]
            for a in self.alphabet:
                nxt = self.step(cur, a)
                if nxt not in index:
                    if limit is not None and len(order) >= limit:
                        raise ValueError(f"the subset construction passes {limit} states")
                    index[nxt] = len(order)
                    order.append(nxt)
                trans[(i, a)] = index[nxt]
            i += 1
        acc = frozenset(j for j, s in enumerate(order) if s & self.accepting)
        return DFA(self.alphabet, len(order), 0, acc, trans)

    def to_dict(self) -> dict:
        return {
            "alphabet": list(self.alphabet),
            "states": self.num_states,
            "initial": sorted(self.initial),
            "accepting": sorted(self.accepting),
            "transitions": [{"from": q, "letter": a, "to": t}
                            for (q, a), ts in sorted(self.transitions.items()) for t in sorted(ts)],
        }
