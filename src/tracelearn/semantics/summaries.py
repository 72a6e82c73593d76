"""Facts of procedure summaries, from concrete calls: each procedure run by the
interpreter on small arguments, its entry and exit values laid out as the slots of
its summary predicate (``strategies/horn.py``).

A summary predicate holds of every terminating call from any entry state (the Horn
encoding does not restrict a procedure to the states it is called in), so each
sample is a fact of the clauses' least model: a candidate lemma that a sample
refutes cannot be an invariant. Samples only propose and prune candidates; what is
kept is proved on the clauses (``houdini.py``).
"""

from __future__ import annotations

import itertools
import random
import time

from ..ir.program import Program
from ..ir.types import IntType
from ..z3dag import signed
from .interpreter import Interpreter
from .runs import InterpOptions
from .strategies.horn import HornSystem, Predicate

SMALL = tuple(range(-4, 13))  # the argument values tried: recursion on them stays short
STEP_LIMIT = 20_000  # per call: a call past it (deep or endless recursion) gives no sample

Row = tuple[int | None, ...]


def sample_summaries(program: Program, system: HornSystem, widths: dict[str, list[int | None]], deadline: float,
                     per_proc: int = 240, seed: int = 0) -> dict[str, list[Row]]:
    """Rows of each summary predicate (by its name), values as the integer clauses read
    them (two's complement); ``None`` where a slot holds no integer (memory, pointer).
    ``widths``: each predicate's slots' bit widths by its name (read beforehand: the
    predicates' z3 terms belong to another thread's context)."""
    interp = Interpreter(program, InterpOptions(max_steps=STEP_LIMIT))
    rng = random.Random(seed)
    out: dict[str, list[Row]] = {}
    for p, name in zip(system.predicates, widths):
        if p.kind != "sum" or p.proc == system.entry or p.proc not in program.procedures:
            continue
        proc = program.procedures[p.proc]
        if not all(isinstance(v.type, IntType) for v in proc.params):
            continue
        globals_ = [s.key[1:] for s in p.slots[:p.n_in] if s.scope == "global" and s.oid is None]
        ranges = [_values(v.type) for v in proc.params]
        rows: list[Row] = []
        for args in _arguments(ranges, per_proc, rng):
            if time.perf_counter() > deadline:
                return out
            gin = {g: rng.choice(SMALL) for g in globals_ if g in interp.gslots}
            r = interp.call(proc.name, list(args), gin)
            if r.status != "ok":
                continue
            rows.append(_row(p, widths[name], list(args), gin, r.globals_out or {}, r.value))
        if rows:
            out[name] = rows
    return out


def _values(t: IntType) -> list[int]:
    lo, hi = (-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed else (0, (1 << t.width) - 1)
    return [v for v in SMALL if lo <= v <= hi]


def _arguments(ranges: list[list[int]], n: int, rng: random.Random) -> list[tuple[int, ...]]:
    size = 1
    for r in ranges:
        size *= len(r)
    if size <= n:
        return list(itertools.product(*ranges))
    return [tuple(rng.choice(r) for r in ranges) for _ in range(n)]


def _row(p: Predicate, widths: list[int | None], args: list[int], gin: dict[str, int], gout: dict[str, int],
         ret: object) -> Row:
    row: list[int | None] = []
    params = iter(args)
    for i, s in enumerate(p.slots):
        v: object = None
        if s.oid is None and not s.pointer:
            if s.scope == "param-in":
                v = next(params)
            elif s.scope == "global":
                v = (gin if i < p.n_in else gout).get(s.key[1:])
            elif s.key == "ret":
                v = ret
        w = widths[i]
        if isinstance(v, int) and not isinstance(v, bool) and w is not None:
            row.append(signed(v, w))
        else:
            row.append(None)
    return tuple(row)
