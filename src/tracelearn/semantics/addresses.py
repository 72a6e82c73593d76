"""Which object an address hits, and at which offset, read off the address's term.

A pointer is often a choice among a few places: merged where paths meet, it is
``If(g, &a + 8, If(h, &b + 8, null))``, named by SSA definitions on the way and stored
in memory and read back. Asked as arithmetic (``addr - base`` and a range check per
candidate object), every access through it is a barrel shifter over the object's
bytes and 64-bit comparisons per object, which z3 bit-blasts: one membership query of
pv's ``schedule`` (lists on the heap) held 1,579 shifts and 6,359 comparisons.
CBMC's dereference splits a pointer into the objects it may point to instead. Here
the term's if-then-else structure is followed (through SSA definitions, additions of
constants, and reads of stored pointers at constant offsets) down to its places; when
every place is a constant address, or a null or invalid pointer (plus a field
offset), each object's condition is Boolean (which branches lead into it) and its
offset a constant, or a choice among a few. Any other place (``base + 8 * i``, an
unknown pointer) and the address stays arithmetic: the answer is the same either
way, only its form changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

import z3

from ..z3dag import all_of, any_of, bool_ite, negated

# Distinct subterms looked at per address at most (the structure is a DAG: merged
# pointers share their parts); past it the address stays arithmetic.
MAX_STEPS = 2000
# Names looked through for an address computed by arithmetic.
MAX_NAMES = 8
# A null or invalid pointer plus less than this is in no object (``layout.py``: the
# objects lie between GLOBAL_BASE and INVALID_BASE).
FIELD_LIMIT = 0x10000


@dataclass(frozen=True, eq=False)
class Const:
    """The constant address ``k``."""

    k: int


@dataclass(frozen=True, eq=False)
class Nowhere:
    """A null or invalid pointer plus a field offset: in no object."""


@dataclass(frozen=True, eq=False)
class Node:
    cond: z3.BoolRef
    then: "Tree"
    other: "Tree"


Tree = Union[Const, Nowhere, Node]
Inside = Union[bool, z3.BoolRef]
# An object's offset: a constant, a term, or choices ((cond, offset), ..., (None, offset)).
Offset = Union[int, z3.BitVecRef, tuple]


class _Arithmetic(Exception):
    """A place that is not a constant address: the address stays arithmetic."""


def address_tree(term: z3.BitVecRef, definition: Callable[[z3.ExprRef], z3.ExprRef | None],
                 nowhere: Callable[[z3.ExprRef], bool],
                 memo: dict[tuple[int, int], tuple[z3.ExprRef, Tree]] | None = None) -> Tree | None:
    """The places ``term`` may be, as a DAG of choices, or None when one of them is not
    a constant address or in no object. ``definition(sym)``: the term an SSA symbol
    was defined equal to (None: an input); ``nowhere(sym)``: is ``sym`` a pointer
    constrained to be null or invalid. ``memo``: the trees of subterms found so far,
    (AST id, offset) -> (the term, kept alive, its tree), shared by the calls of one
    semantics (definitions never change; a pointer merged from earlier ones has their
    trees inside)."""
    width = term.size()
    mask = (1 << width) - 1
    memo = {} if memo is None else memo
    new = 0  # nodes this call added: a tree larger than MAX_STEPS stays arithmetic
    nowhere_leaf = Nowhere()

    def walk(t: z3.ExprRef, k: int) -> Tree:
        nonlocal new
        if z3.is_bv_value(t):
            return Const((t.as_long() + k) & mask)
        key = (t.get_id(), k)
        hit = memo.get(key)
        if hit is not None and hit[0].eq(t):
            return hit[1]
        new += 1
        if new > MAX_STEPS:
            raise _Arithmetic
        if z3.is_app_of(t, z3.Z3_OP_ITE):
            tree: Tree = Node(t.arg(0), walk(t.arg(1), k), walk(t.arg(2), k))
        elif z3.is_app_of(t, z3.Z3_OP_BADD) and t.num_args() == 2 and z3.is_bv_value(t.arg(0)):
            tree = walk(t.arg(1), (k + t.arg(0).as_long()) & mask)
        elif z3.is_const(t) and nowhere(t) and k < FIELD_LIMIT:
            tree = nowhere_leaf
        else:
            inner = definition(t) if z3.is_const(t) else (
                _through_extract(t, definition) if z3.is_app_of(t, z3.Z3_OP_EXTRACT) else None)
            if inner is None:
                raise _Arithmetic
            tree = walk(inner, k)
        memo[key] = (t, tree)
        return tree

    try:
        return walk(term, 0)
    except _Arithmetic:
        return None


def unname(term: z3.BitVecRef, definition: Callable[[z3.ExprRef], z3.ExprRef | None]) -> z3.BitVecRef:
    """``term`` with the SSA names of an address computation looked through (``p`` for
    ``p#2`` defined as ``&a + 8 * i``), so that the offset into ``a`` simplifies to
    ``8 * i``, whose alignment shows; choices keep their names."""
    for _ in range(MAX_NAMES):
        if not z3.is_const(term) or z3.is_bv_value(term):
            return term
        d = definition(term)
        if d is None or not (z3.is_const(d) or z3.is_app_of(d, z3.Z3_OP_BADD)):
            return term
        term = d
    return term


def _through_extract(t: z3.ExprRef, definition) -> z3.ExprRef | None:
    """``Extract(hi, lo, x)`` one step closer to a stored value: into ``x``'s
    definition, an if-then-else (both sides) or a concatenation; None when no closer."""
    hi, lo = t.params()
    x = t.arg(0)
    if z3.is_bv_value(x):
        return z3.simplify(t)
    if z3.is_const(x):
        d = definition(x)
        return z3.Extract(hi, lo, d) if d is not None else None
    if z3.is_app_of(x, z3.Z3_OP_ITE):
        return z3.If(x.arg(0), z3.Extract(hi, lo, x.arg(1)), z3.Extract(hi, lo, x.arg(2)))
    if z3.is_app_of(x, z3.Z3_OP_CONCAT):
        s = z3.simplify(t)  # the part it reads, or a smaller concatenation
        return None if s.eq(t) else s
    return None


def project(tree: Tree, width: int, base: int, fits: Callable[[int], Inside]) -> tuple[Inside, Offset]:
    """Where the address hits one object: the condition that the access lies inside it
    and the offset there (meaningful only where the condition holds). ``fits(off)``
    says whether an access at that offset lies inside (or the condition for it, for an
    object of symbolic size)."""
    mask = (1 << width) - 1
    offsets: set[int] = set()

    def test(leaf: Tree) -> Inside:
        if isinstance(leaf, Nowhere):
            return False
        off = (leaf.k - base) & mask
        ok = fits(off)
        if ok is not False:
            offsets.add(off)
        return ok

    inside = _decide(tree, test)
    if len(offsets) <= 1:
        return inside, next(iter(offsets), 0)
    ordered = sorted(offsets)
    choices = tuple((as_bool(_decide(tree, lambda leaf, c=c: test(leaf) is not False and (leaf.k - base) & mask == c)), c)
                    for c in ordered[:-1])
    return inside, choices + ((None, ordered[-1]),)


def _decide(tree: Tree, test: Callable[[Tree], Inside]) -> Inside:
    """The condition under which the address is at a place passing ``test``, over the
    DAG's choices (shared parts built once)."""
    memo: dict[int, Inside] = {}

    def go(t: Tree) -> Inside:
        r = memo.get(id(t))
        if r is not None:
            return r
        if isinstance(t, Node):
            r = _choose(t.cond, go(t.then), go(t.other))
        else:
            r = test(t)
        memo[id(t)] = r
        return r

    return go(tree)


def _choose(c: z3.BoolRef, a: Inside, b: Inside) -> Inside:
    """``If(c, a, b)`` for Booleans, without a term where a side is a constant. (C calls,
    not z3py's: an unwinding of a heap program built these 6 s of its 20.)"""
    if a is b:
        return a
    if a is True:
        return c if b is False else any_of([c, b])
    if a is False:
        return negated(c) if b is True else all_of([negated(c), b])
    if b is True:
        return any_of([negated(c), a])
    if b is False:
        return all_of([c, a])
    return bool_ite(c, a, b)


def by_offset(off: Offset, width: int, at: Callable[[z3.BitVecRef], z3.ExprRef]) -> z3.ExprRef:
    """``at(offset)``, once per offset the address may have there."""
    if isinstance(off, int):
        return at(z3.BitVecVal(off, width))
    if not isinstance(off, tuple):
        return at(off)
    term = at(z3.BitVecVal(off[-1][1], width))
    for cond, c in reversed(off[:-1]):
        term = z3.If(cond, at(z3.BitVecVal(c, width)), term)
    return term


def as_bool(b: Inside) -> z3.BoolRef:
    return z3.BoolVal(b) if isinstance(b, bool) else b
