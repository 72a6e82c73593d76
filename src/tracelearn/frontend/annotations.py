"""Loop invariants given from outside the program (a correctness witness), parsed as C
expressions and lowered at the head of their loop, in the loop's own scope, by the
same lowering as the program: an invariant means what C means there.

At the loop head the lowering emits ``assert(inv)`` (kind ``invariant``), then gives
every variable in scope an arbitrary value, then ``assume(inv)``: the loop's state
after any number of iterations is abstracted by the invariant, so the program with
these cut points is safe exactly when every invariant holds on entry, is preserved by
an iteration, and implies the property (the standard reduction of witness checking).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast, c_parser


from ..errors import TracelearnError


@dataclass
class LoopAnnotation:
    """An invariant for the loop whose statement starts at ``line``:``column``
    (``column`` None: the only loop on that line)."""

    line: int
    column: int | None
    text: str
    function: str | None = None
    origin: str = ""  # where it came from, for messages (witness file and entry)
    node: c_ast.Node | None = field(default=None, repr=False)
    used: bool = False


def parse_expression(text: str, origin: str) -> c_ast.Node:
    """``text`` as a C expression (pycparser), or a clear error naming ``origin``."""
    try:
        ast = c_parser.CParser().parse(f"int __tl_invariant(void) {{ return ({text}); }}", "<invariant>")
    except (c_parser.ParseError, AssertionError) as e:
        raise TracelearnError(f"invariant {text!r} is not a C expression ({e})", origin) from None
    ret = ast.ext[0].body.block_items[0]
    return ret.expr


def for_loop(annotations: list[LoopAnnotation], line: int, column: int, function: str,
             loops_on_line: int) -> list[LoopAnnotation]:
    """The annotations of the loop at ``line``:``column`` of ``function``."""
    out = []
    for a in annotations:
        if a.line != line or (a.function and a.function != function):
            continue
        if a.column is None or a.column == column or loops_on_line == 1:
            out.append(a)
    return out
