"""Building one procedure's control-flow graph in source layout order."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import UnsupportedError
from ..ir.program import Block, Branch, Goto, Return, SourceLoc, Stmt, Terminator


@dataclass
class CFGBuilder:
    """Blocks are numbered by creation; ``finish`` renumbers them in the order they
    were placed (the order their code appears in the source), which is what makes
    every backward jump a loop back edge."""

    blocks: list[Block] = field(default_factory=list)
    placed: list[int] = field(default_factory=list)
    cur: int | None = None

    def new_block(self, label: str = "", loc: SourceLoc | None = None) -> int:
        b = Block(len(self.blocks), label=label)
        if loc is not None:
            b.loc = loc
        self.blocks.append(b)
        return b.index

    def place(self, bid: int, loc: SourceLoc | None = None) -> None:
        """Start emitting into ``bid``; the current block falls through to it."""
        if self.cur is not None and self.blocks[self.cur].term is None:
            self.blocks[self.cur].term = Goto(bid, loc or self.blocks[self.cur].loc)
        if bid in self._placed_set:
            raise AssertionError(f"block {bid} placed twice")
        self._placed_set.add(bid)
        self.placed.append(bid)
        self.cur = bid
        if loc is not None and self.blocks[bid].loc.line == 0:
            self.blocks[bid].loc = loc

    def __post_init__(self) -> None:
        self._placed_set: set[int] = set()
        self.emitted = 0  # statements emitted so far: tells whether lowering had effects

    @property
    def reachable(self) -> bool:
        return self.cur is not None

    def ensure_block(self, loc: SourceLoc) -> Block:
        """The current block; after a jump, code continues in a fresh (dead) block."""
        if self.cur is None:
            self.place(self.new_block("dead", loc), loc)
        return self.blocks[self.cur]  # type: ignore[index]

    def emit(self, stmt: Stmt, loc: SourceLoc) -> None:
        self.ensure_block(loc).stmts.append(stmt)
        self.emitted += 1

    def terminate(self, term: Terminator, loc: SourceLoc) -> None:
        b = self.ensure_block(loc)
        b.term = term
        self.cur = None

    def finish(self, fallthrough_return: Return) -> list[Block]:
        if self.cur is not None and self.blocks[self.cur].term is None:
            self.blocks[self.cur].term = fallthrough_return
        order = {bid: i for i, bid in enumerate(self.placed)}
        out: list[Block] = []
        for bid in self.placed:
            b = self.blocks[bid]
            if b.term is None:
                b.term = fallthrough_return
            out.append(b)
        extra: list[Block] = []
        for i, b in enumerate(out):
            t = b.term
            if isinstance(t, Goto):
                t.target = self._remap(order, t.target, b)
            elif isinstance(t, Branch):
                t.then = self._remap(order, t.then, b)
                t.else_ = self._remap(order, t.else_, b)
            b.index = i
        # A branch may take at most one backward edge (the model checker unwinds one
        # back edge per block): route a second one through a trampoline block.
        for b in out:
            t = b.term
            if isinstance(t, Branch) and t.then <= b.index and t.else_ <= b.index:
                tramp = Block(len(out) + len(extra), term=Goto(t.else_, t.loc), loc=t.loc, label="trampoline")
                extra.append(tramp)
                t.else_ = tramp.index
        return out + extra

    def _remap(self, order: dict[int, int], target: int, src: Block) -> int:
        if target not in order:
            label = self.blocks[target].label
            raise UnsupportedError(f"jump to label '{label}' that is never defined", str(src.loc))
        return order[target]
