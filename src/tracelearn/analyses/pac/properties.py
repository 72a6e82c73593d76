"""Properties over decision vectors, for reusing a learned model (Pac-Man, Sec. 12).

Two sorts, as the paper names them:

- a new **error path automaton** B': ``unreach-label:L`` (the C label ``L`` is never
  reached) and ``unreach-call:F`` (``F`` is never called). The program gets an error
  node there (an ``Assert(0)`` of kind ``property``) and B' is its error automaton: the
  decision alphabet does not change, so the saved model still speaks it;
- a **regular property** of the vectors themselves: ``max-run:D:N`` (at most N
  consecutive D-decisions on any path, the paper's example) or ``dfa:FILE.json`` (a DFA
  over 0/1, as ``DFA.to_dict`` writes it, accepting the bad vectors).

A violation of either sort is a *prefix*: a vector that is bad stays bad whatever
follows, as the error automaton's error nodes loop on every letter."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from ...automata.dfa import DFA
from ...errors import OptionError
from ...ir.expr import Const
from ...ir.program import Assert, Call, Program, is_library_file
from ...ir.types import IntType

PROPERTY_KIND = "property"
ALPHABET = ("0", "1")
FORMS = "unreach-label:L, unreach-call:F, max-run:D:N (D is 0 or 1) or dfa:FILE.json"


@dataclass
class DecisionProperty:
    text: str
    form: str = ""           # unreach-label | unreach-call | max-run | dfa
    target: str = ""         # unreach-label / unreach-call: the label or function
    bad: DFA | None = None   # a regular property: its bad vectors (bad prefixes, closed under extension)

    @property
    def is_reachability(self) -> bool:
        return self.bad is None

    def describe(self) -> str:
        rest = self.text.partition(":")[2]
        if self.form == "unreach-label":
            return f"label {rest} is never reached"
        if self.form == "unreach-call":
            return f"{rest} is never called"
        if self.form == "max-run":
            d, _, n = rest.partition(":")
            return f"at most {n} consecutive {d}-decisions on any path"
        return f"no decision vector has a prefix accepted by {rest}"


def parse_property(text: str) -> DecisionProperty:
    form, sep, rest = text.partition(":")
    if not sep or not rest:
        raise OptionError(f"--property {text!r}: expected {FORMS}")
    if form in ("unreach-label", "unreach-call"):
        if not rest.replace("_", "a").isalnum() or rest[0].isdigit():
            raise OptionError(f"--property {text!r}: {rest!r} is not a C identifier")
        return DecisionProperty(text, form, target=rest)
    if form == "max-run":
        d, _, n = rest.partition(":")
        if d not in ALPHABET or not n.isdigit():
            raise OptionError(f"--property {text!r}: expected max-run:D:N with D 0 or 1 and N a number")
        return DecisionProperty(text, form, bad=max_run_violations(d, int(n)))
    if form == "dfa":
        try:
            with open(rest, encoding="utf-8") as f:
                bad = DFA.from_dict(json.load(f))
        except OSError as e:
            raise OptionError(f"--property {text!r}: cannot read {rest}: {e.strerror}") from None
        except (ValueError, KeyError, TypeError) as e:
            raise OptionError(f"--property {text!r}: {rest} is not a DFA in JSON ({e})") from None
        if set(bad.alphabet) - set(ALPHABET):
            raise OptionError(f"--property {text!r}: the DFA's alphabet must be 0 and 1, not "
                              f"{', '.join(bad.alphabet)}")
        return DecisionProperty(text, form, bad=bad.complete(ALPHABET))
    raise OptionError(f"--property {text!r}: unknown form {form!r}; expected {FORMS}")


def max_run_violations(d: str, n: int) -> DFA:
    """The vectors with n+1 consecutive d's somewhere: state i counts the current run,
    state n+1 is the bad sink."""
    other = "1" if d == "0" else "0"
    trans = {}
    for i in range(n + 1):
        trans[(i, d)] = i + 1
        trans[(i, other)] = 0
    trans[(n + 1, d)] = trans[(n + 1, other)] = n + 1
    return DFA(ALPHABET, n + 2, 0, frozenset({n + 1}), trans)


def with_property_errors(program: Program, prop: DecisionProperty) -> int:
    """Put an error node (``Assert(0)`` of kind ``property``) where ``prop`` fails: at the
    label, or before each call of the function (a call the frontend lowered to a failing
    check, as ``reach_error()``, becomes one). Rewrites ``program`` in place; returns how
    many error nodes there are (0: the property cannot fail)."""
    false = Const(IntType(32, True, "int"), 0)
    n = 0
    for name, proc in program.procedures.items():
        if is_library_file(proc.loc.file) or name == program.init:
            continue
        for b in proc.blocks:
            if prop.form == "unreach-label":
                if b.label == prop.target:
                    b.stmts.insert(0, Assert(false, b.loc, f"{b.loc}:label", PROPERTY_KIND,
                                             f"label {prop.target} reached"))
                    n += 1
                continue
            out = []
            for s in b.stmts:
                if isinstance(s, Call) and s.callee == prop.target:
                    out.append(Assert(false, s.loc, f"{s.loc}:call", PROPERTY_KIND, f"{prop.target} called"))
                    n += 1
                elif isinstance(s, Assert) and s.origin == prop.target and isinstance(s.cond, Const):
                    s = replace(s, kind=PROPERTY_KIND, msg=f"{prop.target} called")
                    n += 1
                out.append(s)
            b.stmts = out
    return n


def check_target(program: Program, prop: DecisionProperty) -> None:
    """A reachability property names a label or function of the program (a typo would
    otherwise hold vacuously)."""
    t = prop.target
    blocks = [b for p in program.procedures.values() for b in p.blocks]
    if prop.form == "unreach-label":
        if not any(b.label == t for b in blocks):
            raise OptionError(f"--property {prop.text}: the program has no label {t}")
    elif t not in program.procedures and not any(
            (isinstance(s, Call) and s.callee == t) or (isinstance(s, Assert) and s.origin == t)
            for b in blocks for s in b.stmts):
        raise OptionError(f"--property {prop.text}: the program has no function {t}")
