"""Sigma*'s symbolic observation table (Sec. 5, Algs. 1 and 2): L* over path
predicates instead of a concrete alphabet.

Rows are words of *letters* (a big step's guard, compared as text: syntactically, as
in the paper), columns are suffixes ending with a *final* letter (the guard of what
the program does at the end of its input, our extension), and an entry is the text
of the outputs the suffix's steps write after the row's prefix (or, with
``compare="semantic"``, the name of their class: outputs that are the same function
of the window where the step's guard holds, which the teacher decides), ``⊥`` from the
first letter of the suffix the run does not take. The teacher turns a word into an
input (a witness) and runs it.

- Alg. 1 (``fill``): the missing entries, from one run each.
- Alg. 2 (``discover``): the transitions of a state: extend its access word by one
  step with the guard ``true``, then with the negation of the guards found so far,
  until no input takes another one; the same for the final letters.
- Closing: a row of ``S`` that equals no row of ``R`` becomes a new state.
- A counterexample input: its letters after the longest prefix in ``S`` are added to
  ``E`` with all their suffixes (Rivest-Schapire-like, as the paper).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

import z3

from ..automata.transducer import FinalMove, Move, Transducer
from ..bvterm import TermFacts


@dataclass(frozen=True)
class Letter:
    guard: z3.BoolRef
    key: str
    final: bool = False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Letter) and self.key == other.key and self.final == other.final

    def __hash__(self) -> int:
        return hash((self.key, self.final))


Word = tuple[Letter, ...]


@dataclass
class Observation:
    """One run: a letter per input element, then the final letter; the outputs of each."""

    letters: Word
    outputs: tuple[tuple[z3.ExprRef, ...], ...]
    values: list[int]

    def output_key(self, i: int) -> str:
        return "[" + ", ".join(o.sexpr() for o in self.outputs[i]) + "]"


class SymbolicTeacher(Protocol):
    def execute(self, word: Word) -> Observation | None:
        """A run on an input whose big steps satisfy the letters of ``word`` (the last
        may be final), or None when no input does."""

    def extend(self, word: Word, excluded: list[Letter], final: bool) -> Observation | None:
        """A run on an input that follows ``word`` and then makes a step (``final``: ends)
        whose guard satisfies none of ``excluded``, or None."""

    def output_class(self, outputs: tuple[z3.ExprRef, ...], guard: z3.BoolRef) -> str:
        """A name shared by the output sequences written under ``guard`` that are the
        same function of the window where it holds (the table's semantic comparison)."""


BOTTOM = "⊥"


@dataclass
class TableStats:
    rows: int = 0
    columns: int = 0
    entries: int = 0
    from_runs: int = 0  # entries read off a run made for another entry
    conjecture_refinements: int = 0


@dataclass
class SymbolicTable:
    teacher: SymbolicTeacher
    bits: int
    R: list[Word] = field(default_factory=list)
    E: list[Word] = field(default_factory=list)
    T: dict[tuple[Word, Word], tuple[str, ...]] = field(default_factory=dict)
    trans: dict[Word, list[tuple[Letter, Observation]]] = field(default_factory=dict)
    finals: dict[Word, list[tuple[Letter, Observation]]] = field(default_factory=dict)
    initial_output: tuple[int, ...] = ()
    # Sigma* starts E with the guards found from the initial state; False: E grows from
    # counterexamples only (the equivalence oracle is exact, so fewer runs)
    initial_columns: bool = True
    # entries compared as text (the paper), or as functions of the window where the
    # step's guard holds ("semantic": c * 2 and c << 1 are one output, and so are c and
    # 'a' under the guard c == 'a')
    compare: str = "syntactic"
    stats: TableStats = field(default_factory=TableStats)
    facts: TermFacts = field(default_factory=TermFacts)  # handed to every conjecture
    _runs: dict[Word, Observation] = field(default_factory=dict)

    # ------------------------------------------------------------------ Alg. 2

    def discover(self, r: Word) -> None:
        """The outgoing transitions and final letters of the state reached by ``r``."""
        for final in (False, True):
            found: list[tuple[Letter, Observation]] = []
            while True:
                obs = self.teacher.extend(r, [a for a, _ in found], final)
                if obs is None:
                    break
                self._index(obs)
                a = obs.letters[len(r)]
                if any(a == b for b, _ in found):
                    raise RuntimeError(f"the guard {a.key} was found twice: the teacher is inconsistent")
                found.append((a, obs))
                if self.initial_columns and (a,) not in self.E:
                    self.E.append((a,))
            (self.finals if final else self.trans)[r] = found

    @property
    def S(self) -> list[Word]:
        out = list(self.R)
        for r in self.R:
            out.extend(r + (a,) for a, _ in self.trans.get(r, []))
        return out

    # ------------------------------------------------------------------ Alg. 1

    def _index(self, obs: Observation) -> None:
        """Every prefix of a run's letters names that run: a word is one path of the
        (deterministic) filter, so one run answers every entry along it."""
        for i in range(1, len(obs.letters) + 1):
            self._runs.setdefault(obs.letters[:i], obs)

    def entry(self, u: Word, e: Word) -> tuple[str, ...]:
        key = (u, e)
        if key not in self.T:
            self.T[key] = self._entry(u, e)
            self.stats.entries += 1
        return self.T[key]

    def _entry(self, u: Word, e: Word) -> tuple[str, ...]:
        """The outputs of the suffix's letters as far as a run follows them after ``u``,
        ``⊥`` from the first letter it does not take. "No input takes this letter here"
        is one observation whether the guards contradict the window ``u`` leaves (the
        guards of ``e`` may read it) or the run goes elsewhere: told apart, an escaper's
        state after a plain character and its initial state were two rows, as a column's
        guard that reads back two places is unsatisfiable at the stream's start and
        merely not taken after it. Asked letter by letter (a run answers every letter
        it follows), so a suffix not taken at its first letter costs one question."""
        cells: list[str] = []
        while len(cells) < len(e):
            w = u + e[:len(cells) + 1]
            obs = self._runs.get(w)
            if obs is not None:
                self.stats.from_runs += 1
            else:
                obs = self.teacher.execute(w)
                if obs is None:
                    break
                self._index(obs)
            before = len(cells)
            for i in range(before, len(e)):
                k = len(u) + i
                if k >= len(obs.letters) or obs.letters[k] != e[i]:
                    break
                cells.append(self._cell(obs, k))
            if len(cells) == before:
                break  # an input with the letter's guard, and the run goes elsewhere
        return tuple(cells) + (BOTTOM,) * (len(e) - len(cells))

    def _cell(self, obs: Observation, j: int) -> str:
        if self.compare == "semantic":
            return self.teacher.output_class(obs.outputs[j], obs.letters[j].guard)
        return obs.output_key(j)

    def row(self, u: Word) -> tuple:
        return tuple(self.entry(u, e) for e in self.E)

    def close(self) -> None:
        """Fill the table and add a state for each row of S that R lacks."""
        if not self.R:
            self.R.append(())
            self.discover(())
        while not self._close_pass():
            pass  # a pass that added columns (Sigma*'s initial columns): the rows are read anew
        self.stats.rows, self.stats.columns = len(self.S), len(self.E)

    def _close_pass(self) -> bool:
        """Add, in the order of S, each row of S that R lacks, and the rows after it, until
        none is left (True), or until a new state's transitions added columns (False):
        the first row of S missing from R each time, as a scan from the start would find
        it, without one (a snippet escaper's thousands of states made each scan cost R
        times S)."""
        columns = len(self.E)
        rows = {self.row(r): r for r in self.R}
        in_r = set(self.R)
        todo = deque(s for s in self.S if s not in in_r)
        while todo:
            s = todo.popleft()
            if s in in_r:
                continue
            row = self.row(s)
            if row in rows:
                continue
            self.R.append(s)
            in_r.add(s)
            rows[row] = s
            self.discover(s)
            if len(self.E) != columns:
                return False
            todo.extend(s + (a,) for a, _ in self.trans.get(s, []))
        return True

    # ------------------------------------------------------------------ conjecture

    def conjecture(self) -> Transducer:
        index = {}
        for i, r in enumerate(self.R):
            index.setdefault(self.row(r), i)
        moves: list[Move] = []
        finals: list[FinalMove] = []
        for i, r in enumerate(self.R):
            for a, obs in self.trans.get(r, []):
                moves.append(Move(i, a.guard, obs.outputs[len(r)], index[self.row(r + (a,))]))
            for a, obs in self.finals.get(r, []):
                finals.append(FinalMove(i, a.guard, obs.outputs[len(r)]))
        names = [" · ".join(a.key for a in r) or "ε" for r in self.R]
        return Transducer(self.bits, len(self.R), 0, moves, finals, self.initial_output, names, facts=self.facts)

    # ------------------------------------------------------------------ counterexamples

    def refine(self, obs: Observation) -> None:
        """Add the suffixes of a counterexample's letters after its longest prefix in S."""
        self._index(obs)
        letters = obs.letters
        S = set(self.S)
        k = max(i for i in range(len(letters)) if letters[:i] in S)
        rest = letters[k:]
        for i in range(len(rest)):
            if rest[i:] not in self.E:
                self.E.append(rest[i:])
        self.stats.conjecture_refinements += 1
