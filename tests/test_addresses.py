"""An address read off its places (``semantics/addresses.py``) means what the
arithmetic ``addr - base`` means: the same condition for each object, and the same
offset wherever the condition holds. Checked by z3 on random addresses, and end to
end on C programs whose pointers are merged choices, against the interpreter."""

import random

import pytest
import z3

from tracelearn.semantics.addresses import address_tree, by_offset, project, unname

W = 64
OBJECTS = [(0x10000, 24), (0x10020, 16), (0x80000000, 24), (0x80000040, 8)]  # (base, size)


def _random_address(rng: random.Random, defs: dict, nowhere: set, depth: int = 0):
    """A pointer term the way the semantics builds them: choices, SSA names,
    field offsets, null, null-or-invalid inputs, stored and read back."""
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        base, size = rng.choice(OBJECTS)
        return z3.BitVecVal(base + rng.randrange(0, size + 8, 4), W)
    if roll < 0.4:
        return z3.BitVecVal(0, W)
    if roll < 0.5:
        p = z3.BitVec(f"in{len(nowhere)}_{rng.randrange(10**6)}", W)
        nowhere.add(p.get_id())
        defs[("keep", p.get_id())] = p
        return p + rng.choice([0, 8])
    if roll < 0.7:
        c = z3.Bool(f"c{rng.randrange(10**6)}")
        return z3.If(c, _random_address(rng, defs, nowhere, depth + 1), _random_address(rng, defs, nowhere, depth + 1))
    if roll < 0.85:
        sym = z3.BitVec(f"p{rng.randrange(10**6)}", W)
        defs[sym.get_id()] = (sym, _random_address(rng, defs, nowhere, depth + 1))
        return sym
    # stored in a 3-word blob and read back at a constant offset
    words = [_random_address(rng, defs, nowhere, depth + 1) for _ in range(3)]
    mem = z3.BitVec(f"m{rng.randrange(10**6)}", 3 * W)
    defs[mem.get_id()] = (mem, z3.Concat(*reversed(words)))
    k = rng.randrange(3)
    return z3.Extract(W * (k + 1) - 1, W * k, mem)


def test_places_mean_the_arithmetic_on_random_addresses():
    rng = random.Random(11)
    read_off = 0
    for _ in range(150):
        defs: dict = {}
        nowhere: set[int] = set()
        addr = _random_address(rng, defs, nowhere)

        def definition(s):
            d = defs.get(s.get_id())
            return d[1] if isinstance(d, tuple) and d[0].eq(s) else None

        tree = address_tree(addr, definition, lambda s: s.get_id() in nowhere)
        if tree is None:
            continue
        read_off += 1
        # the definitions and the null-or-invalid domain, as the equation states them
        facts = [d[0] == d[1] for d in defs.values() if isinstance(d, tuple)]
        facts += [z3.Or(d == 0, z3.And(z3.UGE(d, 0xF0000000), z3.ULT(d, 0xF0100000)))
                  for k, d in defs.items() if isinstance(k, tuple)]
        n = rng.choice([1, 4, 8])
        for base, size in OBJECTS:
            inside, off = project(tree, W, base, lambda o: o <= size - n)
            inside = z3.BoolVal(inside) if isinstance(inside, bool) else inside
            arith_off = addr - base
            arith_inside = z3.And(z3.UGE(addr, base), z3.ULE(arith_off, size - n))
            s = z3.Solver()
            s.add(*facts)
            s.add(z3.Or(inside != arith_inside,
                        z3.And(arith_inside, by_offset(off, W, lambda at: at) != arith_off)))
            assert s.check() == z3.unsat, (addr, base)
    assert read_off >= 60  # most random addresses have only constant places


def test_an_unknown_place_keeps_the_arithmetic():
    p = z3.BitVec("p", W)
    i = z3.BitVec("i", W)
    assert address_tree(z3.If(z3.Bool("c"), p, z3.BitVecVal(0x10000, W)), lambda s: None, lambda s: False) is None
    addr = z3.BitVecVal(0x10000, W) + 8 * i
    assert address_tree(addr, lambda s: None, lambda s: False) is None
    # but a name of an address computation is looked through, so that alignment shows
    q = z3.BitVec("q", W)
    assert unname(q, lambda s: addr if s.eq(q) else None).eq(addr)


@pytest.mark.parametrize("bound", [2])
def test_merged_pointers_end_to_end(tmp_path, bound):
    """Pointers chosen among fields of several heap and global objects, stored in an
    array of pointers by a symbolic index and read back: every assertion's verdict is
    the one exhaustive interpretation gives, and each counterexample replays."""
    from tracelearn.api import check

    src = tmp_path / "m.c"
    src.write_text(r"""
        struct node { struct node *next; int val; short pr; };
        struct node g1, g2;
        struct node *slots[4];
        extern int __VERIFIER_nondet_int(void);
        extern void __VERIFIER_error(void);
        int main(void) {
            int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();
            if (a < 0 || a > 3 || b < 0 || b > 3) return 0;
            struct node *h = malloc(sizeof *h);
            if (!h) return 0;
            h->next = &g1; h->val = 7; g1.val = 1; g2.val = 2; g1.next = &g2; g2.next = 0;
            slots[a] = a == 1 ? &g2 : (a == 2 ? h : &g1);
            struct node *p = slots[b];
            int *f = p ? (b & 1 ? &p->val : &p->next->val) : &h->val;
            *f += 10;
            if (a == b && a == 2 && h->next->val != 11) __VERIFIER_error();   /* never */
            if (a == b && a == 0 && g2.val == 12) __VERIFIER_error();        /* reachable */
            return 0;
        }
    """)
    doc = check(str(src), bound=bound, data_model="LP64")
    line = next(i for i, t in enumerate(src.read_text().splitlines(), 1) if "/* reachable */" in t)
    assert doc["verdict"] == "false"
    assert doc["counterexample"]["line"] == line
    assert doc["counterexample"]["replay"]["status"] == "confirmed"
    # and with that error call gone, the other one is unreachable: true within the bound
    src.write_text(src.read_text().replace("g2.val == 12) __VERIFIER_error()", "g2.val == 12) return 1"))
    assert check(str(src), bound=bound, data_model="LP64")["verdict"] in ("true", "true-up-to-bound")


def _same_tree(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if hasattr(a, "k"):
        return a.k == b.k
    if hasattr(a, "cond"):
        return a.cond.eq(b.cond) and _same_tree(a.then, b.then) and _same_tree(a.other, b.other)
    return True


def test_places_shared_between_calls_are_the_places_found_alone():
    """The semantics keeps the places of subterms between accesses (one memo): every
    address, alone or as part of a later one, gets the tree a fresh walk gives."""
    rng = random.Random(5)
    defs: dict = {}
    nowhere: set[int] = set()

    def definition(s):
        d = defs.get(s.get_id())
        return d[1] if isinstance(d, tuple) and d[0].eq(s) else None

    memo: dict = {}
    found = 0
    addrs = []
    for i in range(200):
        a = _random_address(rng, defs, nowhere)
        if addrs and rng.random() < 0.5:  # a choice among earlier pointers, as merges make
            a = z3.If(z3.Bool(f"m{i}"), a, z3.BitVecVal(rng.choice([0, 8]), W) + rng.choice(addrs))
        addrs.append(a)
        shared = address_tree(a, definition, lambda s: s.get_id() in nowhere, memo)
        alone = address_tree(a, definition, lambda s: s.get_id() in nowhere)
        assert (shared is None) == (alone is None), a
        if shared is not None:
            found += 1
            assert _same_tree(shared, alone), a
    assert found >= 80 and len(memo) > 100
