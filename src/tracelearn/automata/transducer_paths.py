"""Guards over the window (``w0`` the element of a step, ``wj`` the one j before) put
at input positions, and inputs solved from them: the witnesses of the transducer
operations, the stream learner's table and oracle, and the property checks."""

from __future__ import annotations

import z3

from ..bvterm import window_vars
from ..querytime import at_deadline, remaining_ms
from ..z3dag import assert_all


def at_position(t: z3.BoolRef, i: int, bits: int) -> z3.BoolRef | None:
    """``t`` of the step at position ``i``, over the input symbols ``in!p``; None when it
    reads before the stream's start."""
    sub = []
    for j in window_vars(t):
        if i - j < 0:
            return None
        sub.append((z3.BitVec(f"w{j}", bits), z3.BitVec(f"in!{i - j}", bits)))
    return z3.substitute(t, *sub) if sub else t


def solve_input(cons: list[z3.BoolRef], length: int, bits: int, on: z3.Solver | None = None) -> list[int] | None:
    """An input of ``length`` elements satisfying ``cons`` (over ``in!p``), or None when
    none does; an undecided query raises TimeoutError (never taken for "no input").
    ``on``: a solver to ask in a scope of its own (a caller with many such questions)."""
    s = on if on is not None else solver()
    if on is not None:
        s.push()
    try:
        assert_all(s, cons)  # Booleans built by the learner: no z3py cast of each
        r = s.check()
        if r == z3.unknown:
            raise undecided(s, None)
        if r != z3.sat:
            return None
        m = s.model()
    finally:
        if on is not None:
            s.pop()
    out = []
    for i in range(length):
        v = m.eval(z3.BitVec(f"in!{i}", bits), model_completion=True).as_long()
        out.append(v - (1 << bits) if v >> (bits - 1) else v)
    return out


def path_input(conds: list[z3.BoolRef], bits: int, length: int) -> list[int] | None:
    """An input whose step ``i`` satisfies ``conds[i]`` (each over its own window)."""
    cons = []
    for i, c in enumerate(conds):
        p = at_position(c, i, bits)
        if p is None:
            return None
        cons.append(p)
    return solve_input(cons, length, bits)


def satisfiable(f: z3.BoolRef, deadline: float | None = None) -> bool:
    """Is ``f`` satisfiable? The solver's ``unknown`` (the deadline) raises TimeoutError:
    the callers answer unknown, never a guess."""
    s = solver()
    if deadline is not None:
        s.set("timeout", remaining_ms(deadline))
    s.add(f)
    r = s.check()
    if r == z3.unknown:
        raise undecided(s, deadline)
    return r == z3.sat


def solver() -> z3.Solver:
    """A solver for the stream analyses' many short queries, asked in this thread (a
    helper thread per query, as ``check_sat`` has, cost base64_encode's learning 1 s in
    970 queries). z3's own Ctrl-C handler is off (the command line turns it off for the
    process, a Python API caller has it on): it turned a Ctrl-C into an unknown answer
    and the analysis went on; the interrupt now stops it as the query returns."""
    s = z3.Solver()
    s.set(ctrl_c=False)
    return s


def undecided(s: z3.Solver, deadline: float | None) -> TimeoutError:
    """The error for a query ``s`` left undecided: the time limit when it is past (z3
    says "timeout" or "canceled" either way)."""
    if at_deadline(deadline):
        return TimeoutError("time limit")
    return TimeoutError(f"the solver could not decide a query ({s.reason_unknown()})")
