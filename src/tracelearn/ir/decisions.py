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

from .expr import Const
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

    def vector(self, branches: Iterable[tuple[str, bool]], limit: int | None = None) -> tuple[bool, ...]:
        """The decision vector of a run's branches (``RunResult.decisions``), cut at
        ``limit`` letters."""
        out: list[bool] = []
        letters = self.letters
        for did, taken in branches:
            pair = letters.get(did)
            if pair is None:
                continue
            a = pair[0] if taken else pair[1]
            if a is not None:
                out.append(a)
                if limit is not None and len(out) >= limit:
                    break
        return tuple(out)


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
    for b in proc.blocks:
        cur = b
        pieces: list[Block] = []
        while True:
            k = next((i for i, s in enumerate(cur.stmts)
                      if isinstance(s, Assert) and s.kind in kinds and not isinstance(s.cond, Const)), None)
            if k is None:
                pieces.append(cur)
                break
            s = cur.stmts[k]
            assert isinstance(s, Assert)
            rest = Block(-1, cur.stmts[k + 1:], cur.term, s.loc, f"{cur.label} after assert")
            fail = Block(-1, [replace(s, cond=Const(s.cond.type, 0))], Goto(-1, s.loc), s.loc, "assert failed")
            did = f"{s.prop_id}#holds"
            head = Block(cur.index, cur.stmts[:k], Branch(s.cond, -1, -1, s.loc, did, did, s.msg), cur.loc, cur.label)
            pieces += [head, fail]
            cur = rest
        out += pieces
    # Number the new blocks after their originals (layout order kept), then wire.
    old_to_new: dict[int, int] = {}
    for i, b in enumerate(out):
        if b.index >= 0 and b.index not in old_to_new:
            old_to_new[b.index] = i
    for i, b in enumerate(out):
        t = b.term
        if isinstance(t, Branch) and t.then == -1:  # a split assert: holds -> the rest, else -> fail
            t.else_ = i + 1
            t.then = i + 2
            fail = out[i + 1]
            assert isinstance(fail.term, Goto)
            fail.term = Goto(i + 2, fail.term.loc)
        elif b.index >= 0 or b.label.endswith("after assert"):
            if isinstance(t, Goto):
                b.term = Goto(old_to_new[t.target], t.loc)
            elif isinstance(t, Branch):
                b.term = replace(t, then=old_to_new[t.then], else_=old_to_new[t.else_])
    for i, b in enumerate(out):
        b.index = i
    proc.blocks = out
