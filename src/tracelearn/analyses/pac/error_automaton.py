"""The error path automaton B_P of a program (Pac-Man, Def. 1 and Sec. 9.2), built
from the IR: a node per statement position of the program's own procedures; a
branch reads the letter its source condition makes (``Branch.outcome``), or none
inside a condition that is not decided yet; a call of one of the program's
procedures pushes its return position; any other statement is a lambda-move; an
assertion or error call of the checked kinds, with a constant false condition, is an
error node. Assertions with a real condition are branches by then
(``ir.decisions.assertions_as_branches``), so a decision vector decides whether a
CFG path reaches an error: L(B_P) is exactly the decision vectors of error paths.
Our C library models are lambda-moves (their branches make no letters).

``flips_toward_error`` reads B_P the other way, as a guide for the bug search: which
letters, flipped, head for an error."""

from __future__ import annotations

from ...automata.pushdown import Node, RecursiveAutomaton, letters_to_error
from ...errors import UnsupportedError
from ...ir.expr import Const
from ...ir.program import Assert, Branch, Call, Exit, Goto, Program, Return, is_library_file


def error_automaton(program: Program, kinds: frozenset[str], split: bool = False) -> RecursiveAutomaton:
    user = {n for n, p in program.procedures.items() if not is_library_file(p.loc.file) and n != program.init}
    ra = RecursiveAutomaton(program.entry, {n: (n, 0, 0) for n in user})
    for name in user:
        proc = program.procedures[name]
        for b in proc.blocks:
            for i, s in enumerate(b.stmts):
                node = (name, b.index, i)
                ra.proc_of[node] = name
                nxt = (name, b.index, i + 1)
                if isinstance(s, Assert) and isinstance(s.cond, Const) and not s.cond.value:
                    if s.kind in kinds:
                        ra.errors.add(node)
                    continue  # an unchecked failure ends the run as an abort would
                if isinstance(s, Call):
                    if s.callee is None:
                        raise UnsupportedError("pac: a call through a function pointer (decision vectors do "
                                               "not determine the callee)", str(s.loc))
                    if s.callee in user:
                        ra.edges[node] = [("call", s.callee, nxt)]
                        continue
                ra.edges[node] = [("lambda", None, nxt)]
            node = (name, b.index, len(b.stmts))
            ra.proc_of[node] = name
            t = b.term
            if isinstance(t, Goto):
                ra.edges[node] = [("lambda", None, (name, t.target, 0))]
            elif isinstance(t, Branch):
                letters = (True, False) if split else t.outcome
                ra.edges[node] = [("lambda", None, (name, tgt, 0)) if a is None else ("letter", "1" if a else "0",
                                                                                    (name, tgt, 0))
                                  for a, tgt in zip(letters, (t.then, t.else_))]
            elif isinstance(t, Return):
                ra.exits.add(node)
            elif isinstance(t, Exit):
                pass
    return ra


def flips_toward_error(program: Program, ra: RecursiveAutomaton) -> frozenset[tuple[str, bool]]:
    """The letters (branch, letter made) whose flip heads for an error: the source
    condition's other outcome leads to an error in fewer letters than its own, without
    returning from the procedure (``letters_to_error``; unreachable counts as
    farthest). The bug search flips these first: in ``r = fib(x); if (x != 5 || r
    == 3) return 0; ERROR: ...`` the check has one outcome that returns and one that
    goes on to the error, while neither outcome of the recursion's branches reaches it
    before returning.

    A condition's branches (``a || b && c`` is three, joined by lambda-moves) count as
    one: its outcome's distance is the least over all of their branches' moves."""
    dist = letters_to_error(ra)
    far = len(ra.edges) + 1
    branches = [n for n in ra.edges if _branch(program, n) is not None]
    parent: dict[Node, Node] = {b: b for b in branches}

    def root(b: Node) -> Node:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for b in branches:
        for kind, _, m in ra.out(b):
            if kind == "lambda":
                for c in _next_branches(ra, m, parent):
                    parent[root(c)] = root(b)
    best: dict[Node, dict[str, int]] = {}
    for b in branches:
        side = best.setdefault(root(b), {"0": far, "1": far})
        for kind, letter, m in ra.out(b):
            if kind == "letter":
                side[str(letter)] = min(side[str(letter)], dist.get(m, far))
    out: set[tuple[str, bool]] = set()
    for b in branches:
        side = best[root(b)]
        term = _branch(program, b)
        assert term is not None
        for made, other in (("1", "0"), ("0", "1")):
            if side[other] < side[made]:
                out.add((term.decision_id, made == "1"))
    return frozenset(out)


def _branch(program: Program, node: Node) -> Branch | None:
    """The branch at ``node`` (a node after its block's statements), or None."""
    name, block, i = node  # type: ignore[misc]
    b = program.procedures[name].blocks[block]
    return b.term if i == len(b.stmts) and isinstance(b.term, Branch) else None


def _next_branches(ra: RecursiveAutomaton, start: Node, branches: dict[Node, Node]) -> list[Node]:
    """The branch nodes a run reaches from ``start`` before any letter: the rest of a
    condition whose outcome is not decided yet (calls are stepped over)."""
    found, seen, todo = [], {start}, [start]
    while todo:
        n = todo.pop()
        if n in branches:
            found.append(n)
            continue
        for kind, _, m in ra.out(n):
            if kind != "letter" and m not in seen:
                seen.add(m)
                todo.append(m)
    return found
