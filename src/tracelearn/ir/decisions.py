"""Decision vectors (Pac-Man, Sec. 2): the letters a run makes at the branches of the
program's own code, and the rewriting that makes an assertion one of them.

A letter is made where a *source condition* is decided (``Branch.outcome``): ``a && b``
is one letter, 1 if the whole condition held, unless conditions are split (one letter
per branch of the IR, its direction). Branches inside our C library models make no
letter. A ``switch`` is the cascade ``x == c1``, ``x == c2``, ... the frontend lowers it
to (CIL's lowering too): one letter per case label tried.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from .expr import Const, walk
from .program import Assert, Block, Branch, Goto, Procedure, Program, is_library_file


@dataclass(frozen=True)
class DecisionAlphabet:
    """The letter each (branch, direction) of the program's own code makes."""

    letters: dict[str, tuple[bool | None, bool | None]]
    split: bool = False

    @staticmethod
    def of(program: Program, split: bool = False) -> "DecisionAlphabet":
        letters: dict[str, tuple[bool | None, bool | None]] = {}
        for name, proc in program.procedures.items():
            if is_library_file(proc.loc.file) or name == program.init:
                continue
            for b in proc.blocks:
                t = b.term
                if isinstance(t, Branch):
                    letters[t.decision_id] = (True, False) if split else t.outcome
        return DecisionAlphabet(letters, split)

    def made(self, branches: Iterable[tuple[str, bool]], limit: int | None = None) -> list[tuple[str, bool]]:
        """The letters a run's branches (``RunResult.decisions``) make, each with the
        branch that made it, cut at ``limit`` letters."""
        out: list[tuple[str, bool]] = []
        letters = self.letters
        for did, taken in branches:
            pair = letters.get(did)
            if pair is None:
                continue
            a = pair[0] if taken else pair[1]
            if a is not None:
                out.append((did, a))
                if limit is not None and len(out) >= limit:
                    break
        return out

    def vector(self, branches: Iterable[tuple[str, bool]], limit: int | None = None) -> tuple[bool, ...]:
        """The decision vector of a run's branches, cut at ``limit`` letters."""
        return tuple(a for _, a in self.made(branches, limit))


def decision_constants(program: Program) -> tuple[int, ...]:
    """The integer constants the program's own conditions compare with (sorted): the
    values a search aims at, as fuzzers take theirs from comparisons."""
    out: set[int] = set()
    for name, proc in program.procedures.items():
        if is_library_file(proc.loc.file) or name == program.init:
            continue
        for b in proc.blocks:
            if isinstance(b.term, Branch):
                out.update(int(e.value) for e in walk(b.term.cond)
                           if isinstance(e, Const) and isinstance(e.value, int))
    return tuple(sorted(out))


def assertions_as_branches(program: Program, kinds: frozenset[str]) -> Program:
    """Every ``Assert(c)`` of ``kinds`` with a condition that is not constant becomes
    ``if (c) go on; else { Assert(0) }``, as CIL lowers ``assert``: whether a run
    fails there is then a decision, so the error nodes of the CFG are decided by
    decision vectors (Pac-Man's error automaton is exact only so). Rewrites
    ``program`` in place (callers pass a copy) and returns it."""
    for proc in program.procedures.values():
        if not is_library_file(proc.loc.file):
            _split_asserts(proc, kinds)
    return program


def _split_asserts(proc: Procedure, kinds: frozenset[str]) -> None:
    out: list[Block] = []
    first: dict[int, int] = {}  # an original block's index -> its first piece's position
    tails: set[int] = set()  # ids of the pieces that keep an original terminator
    splits: list[int] = []  # positions of the split asserts' branch blocks
    for b in proc.blocks:
        first[b.index] = len(out)
        cur = b
        while True:
            k = next((i for i, s in enumerate(cur.stmts)
                      if isinstance(s, Assert) and s.kind in kinds and not isinstance(s.cond, Const)), None)
            if k is None:
                tails.add(id(cur))
                out.append(cur)
                break
            s = cur.stmts[k]
            assert isinstance(s, Assert)
            did = f"{s.prop_id}#holds"
            # holds -> the rest of the block (two places on), fails -> Assert(0) (next)
            head = Block(-1, cur.stmts[:k], Branch(s.cond, -1, -1, s.loc, did, did, s.msg), cur.loc, cur.label)
            fail = Block(-1, [replace(s, cond=Const(s.cond.type, 0))], Goto(-1, s.loc), s.loc, "assert failed")
            splits.append(len(out))
            out += [head, fail]
            cur = Block(-1, cur.stmts[k + 1:], cur.term, s.loc, f"{cur.label} after assert")
    for i in splits:
        t, fail = out[i].term, out[i + 1]
        assert isinstance(t, Branch)
        t.then, t.else_ = i + 2, i + 1
        fail.term = Goto(i + 2, fail.loc)
    for b in out:
        t = b.term
        if id(b) not in tails:
            continue
        if isinstance(t, Goto):
            b.term = Goto(first[t.target], t.loc)
        elif isinstance(t, Branch):
            b.term = replace(t, then=first[t.then], else_=first[t.else_])
    for i, b in enumerate(out):
        b.index = i
    proc.blocks = out
