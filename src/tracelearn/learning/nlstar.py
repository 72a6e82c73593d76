"""NL* (Bollig, Habermehl, Kern and Leucker, IJCAI 2009): L* for residual finite-state
automata (RFSAs), the Pac-Man paper's fifth learner.

The observation table is L*'s (rows for S and S·Σ, columns E), read as bit sets. A row
is *composed* when it is the join (bitwise or) of the rows it strictly covers, and
*prime* otherwise; the states of the hypothesis are the prime rows of S. The table is
made

- *RFSA-closed*: every row of S·Σ is the join of the prime rows of S it covers (else
  that word joins S);
- *RFSA-consistent*: ``row(u') ⊑ row(u)`` implies ``row(u'a) ⊑ row(ua)`` for u, u' in S
  (else the column ``a·e`` that breaks it is added).

The hypothesis R(T): initial states are the primes covered by row(ε), final states
those with a 1 in column ε, and ``δ(row(u), a)`` the primes covered by row(ua). A
counterexample adds its suffixes to E (as Maler-Pnueli do for L*). The learner
interface speaks DFAs, so ``hypothesis()`` is R(T) determinized; ``nfa()`` gives the
RFSA itself. When a counterexample has no new suffix (R(T) need not agree with every
cell of its table), its prefixes join S instead, which keeps the table growing.
"""

from __future__ import annotations

from collections.abc import Sequence
from ..automata.dfa import DFA
from ..automata.nfa import NFA
from .learner import Learner, LearningError, MembershipOracle, Word
from .lstar import TableSnapshot, fill_table


class NLStar(Learner):
    name = "nlstar"

    def __init__(self, alphabet: Sequence[str], oracle: MembershipOracle, *, max_states: int = 10_000) -> None:
        super().__init__(alphabet, oracle, max_states=max_states)
        self.S: list[Word] = [()]
        self.E: list[Word] = [()]
        self.rows: dict[Word, list[bool]] = {}
        self._nfa: NFA | None = None
        self._hyp: DFA | None = None

    # ----------------------------------------------------------------- table

    def _fill(self) -> None:
        fill_table(self.S, self.E, self.rows, self.alphabet, self.oracle)

    def _bits(self, w: Word) -> int:
        return sum(1 << j for j, b in enumerate(self.rows[w]) if b)

    def _lower(self) -> list[Word]:
        return [u + (a,) for u in self.S for a in self.alphabet]

    @staticmethod
    def _primes(pool: set[int]) -> set[int]:
        """The rows of ``pool`` that are not the join of the rows they strictly cover."""
        out = set()
        for r in pool:
            join = 0
            for r2 in pool:
                if r2 != r and r2 & ~r == 0:
                    join |= r2
            if join != r:
                out.add(r)
        return out

    def _upper_primes(self) -> dict[int, Word]:
        """Prime rows of S (prime among all rows of the table), each with its first word."""
        pool = {self._bits(w) for w in self.S} | {self._bits(w) for w in self._lower()}
        primes = self._primes(pool)
        reps: dict[int, Word] = {}
        for u in self.S:
            r = self._bits(u)
            if r in primes:
                reps.setdefault(r, u)
        return reps

    def _close(self) -> None:
        while True:
            self._fill()
            reps = self._upper_primes()
            self._check_size(len(reps))
            upper = set(self.S)
            grew = False
            for w in self._lower():
                r = self._bits(w)
                join = 0
                for p in reps:
                    if p & ~r == 0:
                        join |= p
                if join != r and w not in upper:
                    self.S.append(w)
                    grew = True
                    break
            if grew:
                continue
            if not self._make_consistent():
                return

    def _make_consistent(self) -> bool:
        bits = {u: self._bits(u) for u in self.S}
        for u in self.S:
            for v in self.S:
                if u == v or bits[v] & ~bits[u] != 0:  # needs row(v) ⊑ row(u)
                    continue
                for a in self.alphabet:
                    ru, rv = self._bits(u + (a,)), self._bits(v + (a,))
                    bad = rv & ~ru
                    if bad:
                        j = (bad & -bad).bit_length() - 1
                        self.E.append((a,) + self.E[j])
                        return True
        return False

    # ------------------------------------------------------------- hypothesis

    def nfa(self) -> NFA:
        """R(T), the residual NFA of the closed and consistent table."""
        if self._nfa is not None:
            return self._nfa
        self._close()
        reps = self._upper_primes()
        order = list(reps)
        num = {r: i for i, r in enumerate(order)}
        eps = self._bits(())
        initial = frozenset(num[r] for r in order if r & ~eps == 0)
        accepting = frozenset(num[r] for r in order if r & 1)
        trans: dict[tuple[int, str], frozenset[int]] = {}
        for r in order:
            u = reps[r]
            for a in self.alphabet:
                ra = self._bits(u + (a,))
                trans[(num[r], a)] = frozenset(num[p] for p in order if p & ~ra == 0)
        self._nfa = NFA(self.alphabet, max(1, len(order)), initial, accepting, trans)
        return self._nfa

    def hypothesis(self) -> DFA:
        if self._hyp is None:
            try:
                self._hyp = self.nfa().determinize(self.max_states)
            except ValueError as e:
                raise LearningError(f"nlstar: the hypothesis as a DFA: {e}") from None
        return self._hyp

    # ------------------------------------------------------- counterexamples

    def refine(self, counterexample: Word) -> None:
        ce = tuple(counterexample)
        self._checked_answer(ce)
        known = set(self.E)
        new = [ce[i:] for i in range(len(ce) - 1, -1, -1) if ce[i:] not in known]
        if new:
            self.E.extend(new)
        else:
            rows = set(self.S)
            prefixes = [ce[:i] for i in range(1, len(ce) + 1) if ce[:i] not in rows]
            if not prefixes:
                raise LearningError(f"nlstar: counterexample {list(ce)} yields no new row or column; "
                                    "the teacher's answers contradict each other")
            self.S.extend(prefixes)
        self._nfa = self._hyp = None

    # ------------------------------------------------------------- snapshots

    def snapshot(self) -> TableSnapshot:
        return TableSnapshot.of(self.S, self.E, self.rows)

    def restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, TableSnapshot)
        self.S, self.E, self.rows = snapshot.table()
        self._nfa = self._hyp = None
