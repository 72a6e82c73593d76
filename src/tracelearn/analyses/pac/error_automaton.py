"""The error path automaton B_P of a program (Pac-Man, Def. 1 and Sec. 9.2), built
from the IR: a node per statement position of the program's own procedures; a
branch reads the letter its source condition makes (``Branch.outcome``), or none
inside a condition that is not decided yet; a call of one of the program's
procedures pushes its return position; any other statement is a lambda-move; an
assertion or error call of the checked kinds, with a constant false condition, is an
error node. Assertions with a real condition are branches by then
(``ir.decisions.assertions_as_branches``), so a decision vector decides whether a
CFG path reaches an error: L(B_P) is exactly the decision vectors of error paths.
Our C library models are lambda-moves (their branches make no letters)."""

from __future__ import annotations

from ...automata.pushdown import RecursiveAutomaton
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
