"""The waypoints of an SV-COMP violation witness, read off a trace: the values the
nondet calls return, argc/argv and scanf's conversions as assumptions, and the
branches taken, up to the violated check. Any strategy that has the trace's equation
and a model of it (the model checker, the PAC teacher's path) writes the same
witness."""

from __future__ import annotations

import re

import z3

from .equation import Equation
from .traces import guard_truth, model_value


def trace_waypoints(eq: Equation, m: z3.ModelRef, prop_id: str, sources: dict[str, list[str]]) -> list[tuple]:
    """(type, file, line, column, function, constraint, format) in trace order: the
    values nondet calls return, and the branches taken."""
    out = []
    argv: dict[str, object] = {}  # argc/argv, stated at main's first statement
    argv_loc = None
    scanned: list[str] = []  # `k == 42` for scanf's conversions, stated after the call
    scan_at: tuple | None = None  # (loc, conversions so far) of the scanf being read
    true = guard_truth(m)
    for s in eq.steps:
        if not true(s.guard):
            continue
        if s.kind == "input" and (s.message == "argc" or s.message.startswith("argv[")):
            argv[s.message] = model_value(m, s.ssa, s.type)
            argv_loc = s.loc
            continue
        if argv and s.kind in ("assign", "decision", "input", "check") and s.loc != argv_loc:
            out.append(("assumption", s.loc.file, s.loc.line, s.loc.col, s.function,
                        _argv_constraint(argv), "c_expression"))
            argv = {}
        if s.kind == "input" and _SCANNED.match(s.message):
            k = scan_at[1] + 1 if scan_at is not None and scan_at[0] == s.loc else 0
            scan_at = (s.loc, k)
            target = _scanf_target(sources.get(s.loc.file, []), s.loc, k,
                                   0 if s.message.startswith("scanf") and "fscanf" not in s.message else 1)
            value = model_value(m, s.ssa, s.type)
            if target is not None and isinstance(value, int) and not s.message.endswith(("%s", "%c")):
                scanned.append(f"{target} == {value}")
            continue
        if scan_at is not None and s.loc != scan_at[0]:  # the next statement
            if scanned:
                out.append(("assumption", s.loc.file, s.loc.line, s.loc.col, s.function,
                            " && ".join(scanned), "c_expression"))
            scanned, scan_at = [], None
        if s.kind == "check" and s.prop_id == prop_id and s.violation is not None \
                and z3.is_true(m.eval(s.violation, model_completion=True)):
            break
        if s.kind == "input" and s.message.endswith("()") and " " not in s.message and s.type is not None:
            v = model_value(m, s.ssa, s.type)
            if isinstance(v, int):
                out.append(("function_return", s.loc.file, s.loc.line, s.loc.col, s.function,
                            f"\\result == {v}", "acsl_expression"))
        # A branching waypoint names a whole condition at its keyword: only conditions
        # that && || ! did not split into several decisions qualify.
        if s.kind == "decision" and s.cond is not None and s.atomic and s.keyword is not None:
            taken = z3.is_true(m.eval(s.cond, model_completion=True))
            k = s.keyword
            out.append(("branching", k.file, k.line, k.col, s.function,
                        "true" if taken else "false", "c_expression"))
    return out


def _argv_constraint(argv: dict[str, object]) -> str:
    """``argc == 2 && argv[1][0] == 65 && argv[1][1] == 0``: the arguments up to their
    NUL (argv[0], the program's name, is left free), chars as signed values."""
    argc = argv.get("argc")
    out = [f"argc == {argc}"] if argc is not None else []
    for name, value in argv.items():
        if not name.startswith("argv[") or not isinstance(value, (bytes, bytearray)):
            continue
        i = int(name[5:-1])
        if i == 0 or (isinstance(argc, int) and i >= argc):
            continue
        data = bytes(value).split(b"\0", 1)[0] + b"\0"
        out += [f"{name}[{k}] == {b - 256 if b > 127 else b}" for k, b in enumerate(data)]
    return " && ".join(out)


_SCANNED = re.compile(r"^s?scanf %\w+$")


def _scanf_target(lines: list[str], loc, k: int, first: int) -> str | None:
    """The variable the k-th conversion of the scanf call at ``loc`` stores into, when
    its argument is written ``&name`` (or ``&a[3]``); None otherwise."""
    if not 0 < loc.line <= len(lines):
        return None
    text = "\n".join(lines[loc.line - 1:loc.line + 5])[max(loc.col - 1, 0):]
    open_ = text.find("(")
    if open_ < 0:
        return None
    args, depth, cur, quote = [], 0, [], ""
    for c in text[open_ + 1:]:
        if quote:
            cur.append(c)
            quote = "" if c == quote and (len(cur) < 2 or cur[-2] != "\\") else quote
            continue
        if c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur))
                break
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    i = first + 1 + k
    m = re.fullmatch(r"\s*&\s*([A-Za-z_]\w*(?:\[\d+\])?)\s*", args[i]) if i < len(args) else None
    return m.group(1) if m else None
