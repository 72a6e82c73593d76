"""Weighted MaxSAT over a z3 formula: bit-blast to CNF, solve with RC2 (python-sat),
then re-check the answer in z3.

Measured here: on bit-weighted value objectives (weights 2^i per bit) z3's own
MaxSMT engines time out where RC2 on the bit-blasted CNF answers in seconds.
Bit-blasting can change a formula silently (cardinality constraints must go through
``card2bv`` first), so every answer is re-checked by fixing the soft literals to
RC2's values in z3: a mismatch is reported, never trusted.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass

import z3
from ..semantics.solving import check_sat


@dataclass
class MaxSATResult:
    status: str  # "optimal", "timeout", "unsat", "recheck-failed", "error"
    model: z3.ModelRef | None = None
    cost: int | None = None
    clauses: int = 0
    time_s: float = 0.0


def _rc2_worker(hard, soft, weights, conn) -> None:  # runs in a child process
    try:
        from pysat.examples.rc2 import RC2Stratified
        from pysat.formula import WCNF

        w = WCNF()
        for c in hard:
            w.append(c)
        for lit, wt in zip(soft, weights):
            w.append([lit], weight=wt)
        with RC2Stratified(w) as rc2:
            model = rc2.compute()
            conn.send(("ok", model, rc2.cost))
    except Exception as e:  # reported to the parent as an error result
        conn.send(("error", str(e), None))


def maxsat(constraints: list[z3.BoolRef], softs: list[tuple[z3.BoolRef, int]], timeout_s: float) -> MaxSATResult:
    """Minimise the total weight of the violated soft formulas subject to ``constraints``."""
    t0 = time.perf_counter()
    g = z3.Goal()
    for c in constraints:
        g.add(c)
    atoms = []
    for i, (f, _) in enumerate(softs):
        b = z3.Bool(f"__soft!{i}")
        g.add(b == f)
        atoms.append(b)
    try:
        cnf_goals = z3.Then("simplify", "card2bv", "bit-blast", "tseitin-cnf")(g)
    except z3.Z3Exception:
        return MaxSATResult("error", time_s=time.perf_counter() - t0)
    if len(cnf_goals) != 1:
        return MaxSATResult("error", time_s=time.perf_counter() - t0)
    ids: dict[int, int] = {}

    def lit(e: z3.BoolRef) -> int:
        if z3.is_not(e):
            return -lit(e.arg(0))
        k = e.get_id()
        if k not in ids:
            ids[k] = len(ids) + 1
        return ids[k]

    hard: list[list[int]] = []
    for c in cnf_goals[0]:
        if z3.is_false(c):
            return MaxSATResult("unsat", time_s=time.perf_counter() - t0)
        hard.append([lit(a) for a in c.children()] if z3.is_or(c) else [lit(c)])
    soft = [lit(b) for b in atoms]
    remaining = timeout_s - (time.perf_counter() - t0)
    if remaining <= 0:
        return MaxSATResult("timeout", clauses=len(hard), time_s=time.perf_counter() - t0)
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_rc2_worker, args=(hard, soft, [w for _, w in softs], child), daemon=True)
    proc.start()
    child.close()
    if not parent.poll(remaining):
        proc.kill()
        proc.join()
        return MaxSATResult("timeout", clauses=len(hard), time_s=time.perf_counter() - t0)
    kind, model, cost = parent.recv()
    proc.join()
    if kind != "ok":
        return MaxSATResult("error", clauses=len(hard), time_s=time.perf_counter() - t0)
    if model is None:
        return MaxSATResult("unsat", clauses=len(hard), time_s=time.perf_counter() - t0)
    true_vars = {v for v in model if v > 0}
    # Re-check in z3 with every soft formula fixed to RC2's value.
    s = z3.Solver()
    for c in constraints:
        s.add(c)
    for (f, _), b in zip(softs, atoms):
        s.add(f if ids[b.get_id()] in true_vars else z3.Not(f))
    r = check_sat(s, (), t0 + timeout_s)
    if r != z3.sat:
        return MaxSATResult("recheck-failed" if r == z3.unsat else "timeout", clauses=len(hard),
                            time_s=time.perf_counter() - t0)
    zm = s.model()
    achieved = sum(w for f, w in softs if not z3.is_true(zm.eval(f, model_completion=True)))
    if achieved != cost:
        return MaxSATResult("recheck-failed", clauses=len(hard), time_s=time.perf_counter() - t0)
    return MaxSATResult("optimal", zm, cost, len(hard), time.perf_counter() - t0)
