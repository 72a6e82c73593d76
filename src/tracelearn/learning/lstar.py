"""Angluin's L* with an observation table.

Counterexample processing (``cex``):

- ``"rs"`` (default), Rivest and Schapire 1993: a binary search over the
  counterexample finds one distinguishing suffix, which is added to the columns
  ``E``; O(log m) membership queries per counterexample of length m. Few columns
  also generalise better under a bounded teacher: on the paper's Fig. 2 program
  (b = bwl = 4) it learns the loop of Fig. 5c, where ``"mp"`` learns the bounded
  finite language g^k·f·assert, k <= 3, exactly.
- ``"mp"``, Maler and Pnueli 1995: every suffix of the counterexample is added
  to ``E``; more membership queries, usually far fewer equivalence queries (the
  expensive ones with a model checker as teacher). On the exact target of
  Fig. 5c it makes the paper's two conjectures; ``"rs"`` needs three.

- ``"angluin"``, Angluin 1987 (the Pac-Man paper's "L*"): every prefix of the
  counterexample is added to the rows ``S``. Two rows of ``S`` may then be equal,
  so the table must also be made *consistent*: equal rows whose extensions by a
  letter differ in a column ``e`` get the column ``a·e``.

``"rs"`` and ``"mp"`` only add columns, so the access words ``S`` keep pairwise
distinct rows and the table is always consistent; only closedness has to be
restored, by moving rows of ``S·Σ`` with a new signature into ``S``. Hypothesis
state ``i`` is the ``i``-th distinct row of ``S``; state 0 is the empty word's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..automata.dfa import DFA
from .learner import Learner, LearningError, MembershipOracle, Word, rs_split


@dataclass(frozen=True)
class TableSnapshot:
    """An observation table as plain data (L* and NL* share the table)."""

    S: tuple[Word, ...]
    E: tuple[Word, ...]
    rows: dict[Word, tuple[bool, ...]]

    @staticmethod
    def of(S: list[Word], E: list[Word], rows: dict[Word, list[bool]]) -> "TableSnapshot":
        return TableSnapshot(tuple(S), tuple(E), {w: tuple(r) for w, r in rows.items()})

    def table(self) -> tuple[list[Word], list[Word], dict[Word, list[bool]]]:
        return list(self.S), list(self.E), {w: list(r) for w, r in self.rows.items()}


def fill_table(S: list[Word], E: list[Word], rows: dict[Word, list[bool]], alphabet: tuple[str, ...],
               oracle: MembershipOracle) -> None:
    """Ask every missing cell of the rows of S and S·Σ (one batch)."""
    keys: list[Word] = []
    words: list[Word] = []
    done: set[Word] = set()
    for u in S:
        for w in (u, *(u + (a,) for a in alphabet)):
            if w in done:  # an access word is also the extension of its parent
                continue
            done.add(w)
            row = rows.setdefault(w, [])
            for j in range(len(row), len(E)):
                keys.append(w)
                words.append(w + E[j])
    if words:
        for w, ans in zip(keys, oracle.member_many(words)):
            rows[w].append(ans)


class LStar(Learner):
    name = "lstar"

    def __init__(self, alphabet: Sequence[str], oracle: MembershipOracle, *, cex: str = "rs",
                 max_states: int = 10_000) -> None:
        super().__init__(alphabet, oracle, max_states=max_states)
        if cex not in ("rs", "mp", "angluin"):
            raise ValueError(f"unknown counterexample processing {cex!r} (rs, mp or angluin)")
        self.cex = cex
        self.S: list[Word] = [()]
        self.E: list[Word] = [()]
        self.rows: dict[Word, list[bool]] = {}
        self._hyp: DFA | None = None

    # ----------------------------------------------------------------- table

    def _fill(self) -> None:
        fill_table(self.S, self.E, self.rows, self.alphabet, self.oracle)

    def _close(self) -> None:
        while True:
            self._fill()
            seen = {tuple(self.rows[u]) for u in self.S}
            added = False
            for u in list(self.S):
                for a in self.alphabet:
                    ua = u + (a,)
                    sig = tuple(self.rows[ua])
                    if sig not in seen:
                        seen.add(sig)
                        self.S.append(ua)
                        added = True
            self._check_size(len(seen))
            if not added and not self._make_consistent():
                return

    def _make_consistent(self) -> bool:
        """Angluin's consistency: two access words with equal rows must have equal
        rows after each letter. Adds one column ``a·e`` that separates them (True),
        or finds none to add (False)."""
        first: dict[tuple[bool, ...], Word] = {}
        for u in self.S:
            v = first.setdefault(tuple(self.rows[u]), u)
            if v is u:
                continue
            for a in self.alphabet:
                ru, rv = self.rows[u + (a,)], self.rows[v + (a,)]
                j = next((j for j in range(len(self.E)) if ru[j] != rv[j]), None)
                if j is not None:
                    self.E.append((a,) + self.E[j])
                    return True
        return False

    def hypothesis(self) -> DFA:
        if self._hyp is not None:
            return self._hyp
        self._close()
        reps: list[Word] = []  # the first access word of each distinct row
        state_of: dict[tuple[bool, ...], int] = {}
        for u in self.S:
            if state_of.setdefault(tuple(self.rows[u]), len(reps)) == len(reps):
                reps.append(u)
        trans = {}
        for i, u in enumerate(reps):
            for a in self.alphabet:
                trans[(i, a)] = state_of[tuple(self.rows[u + (a,)])]
        acc = frozenset(i for i, u in enumerate(reps) if self.rows[u][0])
        self._hyp = DFA(self.alphabet, len(reps), 0, acc, trans)
        return self._hyp

    # ------------------------------------------------------- counterexamples

    def refine(self, counterexample: Word) -> None:
        ce = tuple(counterexample)
        hyp, answer = self._checked_answer(ce)
        if self.cex == "angluin":
            known = set(self.S)
            new_rows = [ce[:i] for i in range(1, len(ce) + 1) if ce[:i] not in known]
            if not new_rows:
                raise LearningError(f"lstar: counterexample {list(ce)} yields no new row; "
                                    "the teacher's answers contradict each other")
            self.S.extend(new_rows)
            self._hyp = None
            return
        if self.cex == "mp":
            known = set(self.E)
            new = [ce[i:] for i in range(len(ce) - 1, -1, -1) if ce[i:] not in known]
        else:
            new = [self._rs_suffix(hyp, ce, answer)]
        if not new or any(v in self.E for v in new):
            raise LearningError(f"lstar: counterexample {list(ce)} yields no new column; "
                                "the teacher's answers contradict each other")
        self.E.extend(new)
        self._hyp = None

    def _rs_suffix(self, hyp: DFA, ce: Word, answer: bool) -> Word:
        """Rivest-Schapire: alpha(i) = member(access(state after ce[:i]) + ce[i:]) is
        ``answer`` at 0 and not at len(ce); a binary search finds i with
        alpha(i) != alpha(i+1), and ce[i+1:] separates two rows."""
        _, hi = rs_split(hyp, ce, answer, lambda q: self.S[q], self.oracle.member)
        return ce[hi:]

    # ------------------------------------------------------------- snapshots

    def snapshot(self) -> TableSnapshot:
        return TableSnapshot.of(self.S, self.E, self.rows)

    def restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, TableSnapshot)
        self.S, self.E, self.rows = snapshot.table()
        self._hyp = None
