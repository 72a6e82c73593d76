"""Output sequences of steps compared and evaluated (the positions and the solving are
``automata/transducer_paths``)."""

from __future__ import annotations

import z3

from ...automata.transducer_paths import at_position
from ...z3dag import signed


def outputs_differ(a: tuple, b: tuple) -> z3.BoolRef:
    """Two output sequences (terms over the window) are not the same."""
    d = output_difference(a, b)
    return d if d is not None else z3.BoolVal(False)


def output_difference(a: tuple, b: tuple) -> z3.BoolRef | None:
    """When two output sequences differ; None when they cannot (the same terms: z3
    shares equal terms, so no simplify is needed), which a caller with many pairs
    tests without asking z3 whether a term is false."""
    if len(a) != len(b):
        return z3.BoolVal(True)
    diffs = [x != y for x, y in zip(a, b) if not x.eq(y)]
    return z3.Or(*diffs) if len(diffs) > 1 else diffs[0] if diffs else None


def step_values(outputs: tuple, values: list[int], bits: int) -> list[list[int]]:
    """The concrete outputs of each step of a run (the final move's last): each step's
    output terms put at its position and evaluated on ``values``."""
    env = [(z3.BitVec(f"in!{p}", bits), z3.BitVecVal(v, bits)) for p, v in enumerate(values)]
    out = []
    for i, terms in enumerate(outputs):
        row = []
        for t in terms:
            e = z3.simplify(z3.substitute(at_position(t, i, bits), *env) if env else at_position(t, i, bits))
            row.append(signed(e.as_long(), e.size()))
        out.append(row)
    return out
