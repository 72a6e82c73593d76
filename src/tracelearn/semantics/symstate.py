"""Symbolic values, memory objects and states of symbolic execution."""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

PtsSet = frozenset[int] | None  # objects a value may point into; None: any object


def pts_union(a: PtsSet, b: PtsSet) -> PtsSet:
    if a is None or b is None:
        return None
    if not a:
        return b
    if not b:
        return a
    return a | b


@dataclass
class SVal:
    term: z3.ExprRef
    pts: PtsSet = frozenset()


BLOB_LIMIT = 4096  # objects up to this size are bit-vector blobs, larger ones z3 arrays
# (measured on ADPCM's 356-byte step table: z3 arrays were 20x slower than blobs)
ITE_LIMIT = 256  # aligned symbolic reads of blobs of up to this many elements: an if-then-else chain


@dataclass
class SymObject:
    oid: int
    name: str
    kind: str  # global | local | heap | string | argv
    base: int
    size: int | None  # None: symbolic size (heap)
    size_term: z3.BitVecRef
    ptr_bits: int
    readonly: bool = False

    @property
    def is_blob(self) -> bool:
        return self.size is not None and self.size <= BLOB_LIMIT

    # ------------------------------------------------------------- contents

    def empty(self) -> z3.ExprRef:
        if self.is_blob:
            return z3.BitVecVal(0, max(self.size or 0, 1) * 8)
        return z3.K(z3.BitVecSort(self.ptr_bits), z3.BitVecVal(0, 8))

    def from_bytes(self, data: bytes) -> z3.ExprRef:
        if self.is_blob:
            return z3.BitVecVal(int.from_bytes(data, "little"), max(len(data), 1) * 8)
        arr = self.empty()
        for i, b in enumerate(data):
            if b:
                arr = z3.Store(arr, z3.BitVecVal(i, self.ptr_bits), z3.BitVecVal(b, 8))
        return arr

    def _offset_bits(self, off: z3.BitVecRef, width: int) -> z3.BitVecRef:
        """Byte offset (pointer width) -> bit offset in a ``width``-bit blob."""
        if width > self.ptr_bits:
            off = z3.ZeroExt(width - self.ptr_bits, off)
        elif width < self.ptr_bits:
            off = z3.Extract(width - 1, 0, off)
        return off * 8

    def load(self, contents: z3.ExprRef, off: z3.BitVecRef, n: int) -> z3.BitVecRef:
        if self.is_blob:
            width = contents.size()
            if z3.is_bv_value(off):
                o = off.as_long()
                if o + n <= width // 8:
                    return z3.Extract(8 * (o + n) - 1, 8 * o, contents)
                return z3.BitVecVal(0, 8 * n)
            elems = width // 8 // n if n else 0
            if _aligned(off, n) and 1 < elems <= ITE_LIMIT:
                # Element-aligned index (a[i]): choose among the elements, no barrel shifter.
                term = z3.Extract(8 * n * elems - 1, 8 * n * (elems - 1), contents)
                for k in range(elems - 2, -1, -1):
                    term = z3.If(off == k * n, z3.Extract(8 * n * (k + 1) - 1, 8 * n * k, contents), term)
                return term
            shifted = z3.LShR(contents, self._offset_bits(off, width)) if width > 1 else contents
            if 8 * n > width:
                return z3.ZeroExt(8 * n - width, shifted)
            return z3.Extract(8 * n - 1, 0, shifted)
        parts = [z3.Select(contents, off + i) for i in range(n)]
        return z3.Concat(*reversed(parts)) if n > 1 else parts[0]

    def store(self, contents: z3.ExprRef, off: z3.BitVecRef, n: int, value: z3.BitVecRef) -> z3.ExprRef:
        if self.is_blob:
            width = contents.size()
            if z3.is_bv_value(off):
                o = off.as_long()
                if o + n > width // 8:
                    return contents
                parts = []
                if 8 * (o + n) < width:
                    parts.append(z3.Extract(width - 1, 8 * (o + n), contents))
                parts.append(value)
                if o > 0:
                    parts.append(z3.Extract(8 * o - 1, 0, contents))
                return z3.Concat(*parts) if len(parts) > 1 else parts[0]
            if 8 * n >= width:
                return z3.Extract(width - 1, 0, value)
            elems = width // 8 // n if n else 0
            if _aligned(off, n) and 1 < elems <= ITE_LIMIT and elems * n * 8 == width:
                # Element-aligned index (a[i] = v): each element chooses, no barrel
                # shifter; a read at a constant index sees the choice (``addresses.py``).
                return z3.Concat(*[z3.If(off == k * n, value, z3.Extract(8 * n * (k + 1) - 1, 8 * n * k, contents))
                                   for k in range(elems - 1, -1, -1)])
            sh = self._offset_bits(off, width)
            mask = z3.BitVecVal((1 << (8 * n)) - 1, width) << sh
            v = z3.ZeroExt(width - 8 * n, value) << sh
            return (contents & ~mask) | v
        for i in range(n):
            contents = z3.Store(contents, off + i, z3.Extract(8 * i + 7, 8 * i, value))
        return contents


def _aligned(off: z3.BitVecRef, n: int) -> bool:
    """Is ``off`` a multiple of ``n`` (a power of two), as the simplifier sees it?"""
    if not n or n & (n - 1):
        return False
    low = z3.simplify(off & (n - 1))
    return z3.is_bv_value(low) and low.as_long() == 0


@dataclass
class State:
    guard: z3.BoolRef
    regs: dict[str, SVal] = field(default_factory=dict)
    mem: dict[int, z3.ExprRef] = field(default_factory=dict)
    alive: dict[int, z3.BoolRef] = field(default_factory=dict)  # heap objects
    spts: dict[int, PtsSet] = field(default_factory=dict)  # pts of values stored in an object

    def copy(self, guard: z3.BoolRef | None = None) -> "State":
        return State(self.guard if guard is None else guard, dict(self.regs), dict(self.mem),
                     dict(self.alive), dict(self.spts))
