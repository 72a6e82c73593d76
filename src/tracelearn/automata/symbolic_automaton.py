"""Symbolic finite automata with lookback: the acceptors beside the transducers (the
languages a transducer's pre-image is taken of, and the pre-images themselves).

An automaton reads a stream of ``bits``-bit signed elements; a move's guard is a z3
formula over the window ``w0`` (the element read), ``w1`` (the one before), ... as a
transducer's. A guard reading before the stream's start is not enabled. A state is
accepting at the end of the input where its ``finals`` guard holds (over ``w1``..: the
last elements; ``true`` for a plain accepting state). Any enabled move may be taken
(nondeterministic); an input is accepted when some run ends accepting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from ..bvterm import TermFacts, Undefined, compile_term


@dataclass(frozen=True)
class AutomatonMove:
    src: int
    guard: z3.BoolRef
    dst: int
    # window places the move needs beyond its guard's (a pre-image's move taken only
    # where the transducer's move, which reads them, is enabled)
    needs: frozenset[int] = frozenset()


@dataclass
class SymbolicAutomaton:
    bits: int
    states: int
    initials: tuple[int, ...] = (0,)
    moves: list[AutomatonMove] = field(default_factory=list)
    finals: dict[int, z3.BoolRef] = field(default_factory=dict)  # state -> its end guard
    _facts: TermFacts = field(default_factory=TermFacts, repr=False, compare=False)
    _lookback: int | None = field(default=None, repr=False, compare=False)

    @property
    def lookback(self) -> int:
        """The farthest window place read (the moves are not changed once built: kept)."""
        if self._lookback is None:
            self._lookback = max([j for g in [m.guard for m in self.moves] + list(self.finals.values())
                                  for j in self._facts.places(g)] + [j for m in self.moves for j in m.needs], default=0)
        return self._lookback

    def out_of(self, q: int) -> list[AutomatonMove]:
        return [m for m in self.moves if m.src == q]

    def accepts(self, values: list[int]) -> bool:
        """Does some run on ``values`` end accepting? (Guards compiled once, as a
        transducer's: a check runs thousands of inputs.)"""
        k = self.lookback
        mask = (1 << self.bits) - 1
        cur = set(self.initials)
        n = len(values)
        for i in range(n + 1):
            env = {f"w{j}": values[i - j] & mask for j in range(0 if i < n else 1, k + 1) if i - j >= 0}
            if i == n:
                return any(q in self.finals and self._holds(self.finals[q], frozenset(), env) for q in cur)
            cur = {m.dst for q in cur for m in self.out_of(q) if self._holds(m.guard, m.needs, env)}
            if not cur:
                return False
        return False  # pragma: no cover - the loop returns at the end

    def _holds(self, g: z3.BoolRef, needs: frozenset[int], env: dict[str, int]) -> bool:
        if any(f"w{j}" not in env for j in needs | self._facts.places(g)):
            return False  # it reads before the stream's start
        try:
            return bool(compile_term(g, self._facts.compiled)(env))
        except Undefined:
            return False

    @staticmethod
    def containing(pattern: list[int], bits: int) -> "SymbolicAutomaton":
        """The sequences with ``pattern`` as consecutive elements (a state per matched
        prefix: nondeterministic, it guesses where the pattern starts)."""
        if not pattern:
            raise ValueError("an empty pattern is in every sequence")
        w0 = z3.BitVec("w0", bits)
        n = len(pattern)
        moves = [AutomatonMove(0, z3.BoolVal(True), 0), AutomatonMove(n, z3.BoolVal(True), n)]
        moves += [AutomatonMove(i, w0 == z3.BitVecVal(v, bits), i + 1) for i, v in enumerate(pattern)]
        return SymbolicAutomaton(bits, n + 1, (0,), moves, {n: z3.BoolVal(True)})

