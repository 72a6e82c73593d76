"""IR rewriting used by the analyses: copies, and event instrumentation that keeps
the layout order (so back edges stay loop back edges)."""

from __future__ import annotations

import copy

from .program import Block, Branch, Event, Goto, Procedure, Program, SourceLoc


def copy_program(p: Program) -> Program:
    return copy.deepcopy(p)


def add_entry_event(proc: Procedure, letter: str) -> None:
    proc.blocks[0].stmts.insert(0, Event(letter, proc.loc))


def add_branch_events(proc: Procedure, letters: dict[tuple[str, bool], str]) -> None:
    """For a branch whose (decision id, direction) is in ``letters``, put the event on
    that edge, in a new block placed right after the branch block."""
    out: list[Block] = []
    moves: dict[int, int] = {}
    pending: list[tuple[Block, Branch, bool, Block]] = []
    for b in proc.blocks:
        moves[b.index] = len(out)
        out.append(b)
        t = b.term
        if isinstance(t, Branch):
            for taken in (True, False):
                letter = letters.get((t.decision_id, taken))
                if letter is None:
                    continue
                target = t.then if taken else t.else_
                eb = Block(-1, [Event(letter, t.loc)], Goto(target, t.loc), t.loc, f"event {letter}")
                out.append(eb)
                pending.append((b, t, taken, eb))
    new_index = {id(b): i for i, b in enumerate(out)}
    for b in out:
        t = b.term
        if isinstance(t, Goto):
            if b.index == -1:
                continue
            t.target = moves[t.target]
        elif isinstance(t, Branch):
            t.then = moves[t.then]
            t.else_ = moves[t.else_]
    for b, t, taken, eb in pending:
        eb.term.target = moves[eb.term.target]  # type: ignore[union-attr]
        if taken:
            t.then = new_index[id(eb)]
        else:
            t.else_ = new_index[id(eb)]
    for i, b in enumerate(out):
        b.index = i
    proc.blocks = out


def function_locations(p: Program) -> dict[str, SourceLoc]:
    return {name: proc.loc for name, proc in p.procedures.items()}
