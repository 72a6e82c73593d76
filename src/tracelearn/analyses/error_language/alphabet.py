"""The user's abstraction: which events are letters, and which failure is the target.

Letters are entries to functions (default: every function of the program but
``main`` and built-ins, pv's ``--auto``), entries to branches (named by source
location), an explicit list (``--letters`` or a file, like pv's ``.f`` files), and
events written in the source (``__tl_event("name")``, pv's ``Learn(id)``). The
failing assertion is the final letter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...errors import OptionError
from ...ir.program import Assert, Branch, Event, Exit, Program, Return, SourceLoc
from ...ir.transform import add_branch_events, add_entry_event, copy_program

ASSERT_LETTER = "assert"  # pv's Learn_Assert
END_LETTER = "end"  # program explanation: the end of the explained function
SKIP_FUNCTIONS = {"main", "_Learn_assert", "assume", "exit", "_start", "__tl_init_globals"}


@dataclass
class Letter:
    name: str
    kind: str  # function | branch | source | assert
    locs: list[SourceLoc] = field(default_factory=list)
    text: str = ""  # the branch condition, the function name

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "text": self.text,
                "locations": [{"file": l.file, "line": l.line, "column": l.col} for l in self.locs]}


@dataclass
class AlphabetSpec:
    functions: str | list[str] = "auto"  # "auto", "none", or names
    branches: bool = False
    assertion: str | None = None  # FILE:LINE or LINE of the target assertion
    program_mode: bool = False  # program explanation: the end of `function` is the target
    function: str = "main"
    # Runtime checks whose failure is the final letter (bounds, pointer, div-by-zero);
    # None: the assertions, or, in a program without any, every runtime check.
    target_kinds: frozenset[str] | None = None


@dataclass
class Instrumented:
    program: Program  # a copy with Event statements
    letters: list[Letter]
    final: str  # the final letter (assert or end)
    targets: set[str]  # prop_ids of the target checks
    target_kinds: frozenset[str] = frozenset()  # ... and every check of these kinds (runtime checks)

    def is_target(self, prop_id: str, kind: str) -> bool:
        return prop_id in self.targets or kind in self.target_kinds

    @property
    def alphabet(self) -> tuple[str, ...]:
        return tuple(l.name for l in self.letters) + (self.final,)


def read_letters(arg: str) -> list[str]:
    """``f,g,h`` or the path of a file with one name per line (pv's .f files)."""
    p = Path(arg)
    if p.is_file():
        return [ln.strip() for ln in p.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    return [x.strip() for x in arg.split(",") if x.strip()]


def instrument(program: Program, spec: AlphabetSpec) -> Instrumented:
    prog = copy_program(program)
    letters: dict[str, Letter] = {}
    user_procs = [n for n, p in prog.procedures.items() if n != prog.init and not _is_library(prog, n)]
    if spec.functions == "auto":
        chosen = [n for n in user_procs if n not in SKIP_FUNCTIONS and not n.startswith(("nondet", "__VERIFIER"))]
    elif spec.functions == "none":
        chosen = []
    else:
        chosen = list(spec.functions)
        unknown = [n for n in chosen if n not in prog.procedures]
        if unknown:
            raise OptionError(f"no function named {', '.join(unknown)} in the program (letters must be functions "
                              f"with a body)")
    for name in chosen:
        proc = prog.procedures[name]
        add_entry_event(proc, name)
        letters[name] = Letter(name, "function", [proc.loc], name)
    if spec.branches:
        for name in user_procs:
            proc = prog.procedures[name]
            wanted: dict[tuple[str, bool], str] = {}
            for b in proc.blocks:
                t = b.term
                if isinstance(t, Branch) and t.decision_id:
                    for taken in (True, False):
                        letter = f"{_short(t.loc)}:{'T' if taken else 'F'}"
                        wanted[(t.decision_id, taken)] = letter
                        letters[letter] = Letter(letter, "branch", [t.loc],
                                                 f"{t.text} is {'true' if taken else 'false'}")
            add_branch_events(proc, wanted)
    for proc in prog.procedures.values():
        for b in proc.blocks:
            for s in b.stmts:
                if isinstance(s, Event) and s.letter not in letters:
                    letters[s.letter] = Letter(s.letter, "source", [s.loc], s.letter)
                elif isinstance(s, Event) and s.loc not in letters[s.letter].locs and letters[s.letter].kind == "source":
                    letters[s.letter].locs.append(s.loc)
    if spec.program_mode:
        targets = _end_targets(prog, spec.function)
        final = END_LETTER
    else:
        kinds = spec.target_kinds
        asked_asserts = kinds is None or bool(kinds & ASSERTION_KINDS)
        targets = _assert_targets(prog, spec.assertion, required=kinds is not None or spec.assertion is not None) \
            if asked_asserts else set()
        if kinds is None:
            # No assertion to explain: the program's runtime errors are the target.
            kinds = frozenset() if targets else RUNTIME_KINDS
        final = ASSERT_LETTER
        if final in letters:
            raise OptionError(f"the letter name '{final}' is reserved for the final event")
        return Instrumented(prog, list(letters.values()), final, targets, frozenset(kinds) - ASSERTION_KINDS)
    if final in letters:
        raise OptionError(f"the letter name '{final}' is reserved for the final event")
    return Instrumented(prog, list(letters.values()), final, targets)


def _short(loc: SourceLoc) -> str:
    return f"{Path(loc.file).name}:{loc.line}:{loc.col}"


def _is_library(prog: Program, name: str) -> bool:
    p = prog.procedures[name]
    return "libc/models.c" in p.loc.file


ASSERTION_KINDS = frozenset({"assertion", "error-call"})
RUNTIME_KINDS = frozenset({"bounds", "pointer", "div-by-zero"})


def _assert_targets(prog: Program, where: str | None, required: bool = True) -> set[str]:
    asserts = [s for p in prog.procedures.values() for b in p.blocks for s in b.stmts
               if isinstance(s, Assert) and s.kind in ("assertion", "error-call")]
    learn = [s for s in asserts if s.origin == "_Learn_assert"]
    if where is None and learn:
        return {s.prop_id for s in learn}
    if where is not None:
        file, _, line = where.rpartition(":")
        if not line.isdigit():
            raise OptionError(f"bad --assertion '{where}' (expected FILE:LINE or LINE)")
        hits = {s.prop_id for s in asserts if s.loc.line == int(line) and (not file or s.loc.file.endswith(file))}
        if not hits:
            raise OptionError(f"no assertion or error call at {where}")
        return hits
    if not asserts and required:
        raise OptionError("the program has no assertion or error call to explain (use --target for its "
                          "runtime errors, --program to explain the behaviour of a function)")
    return {s.prop_id for s in asserts}


def _end_targets(prog: Program, function: str) -> set[str]:
    """Program explanation: ``assert(false)`` at every end of ``function`` (its returns;
    for main also the program's exits)."""
    from ...ir.expr import Const
    from ...ir.types import IntType

    if function not in prog.procedures:
        raise OptionError(f"no function named '{function}' to explain")
    proc = prog.procedures[function]
    targets = set()
    n = 0
    for p in prog.procedures.values():
        for b in p.blocks:
            t = b.term
            is_end = (p is proc and isinstance(t, Return)) or (
                function == prog.entry and isinstance(t, Exit) and t.kind == "exit")
            if is_end:
                pid = f"end of {function}#{n}"
                n += 1
                b.stmts.append(Assert(Const(IntType(32, True), 0), t.loc, pid, "assertion",
                                      f"end of {function}", "__tl_end"))
                targets.add(pid)
    return targets
