"""The Bitwuzla process: reads SMT-LIB queries on stdin, answers each on stdout.

A process of its own because Bitwuzla's Python binding holds the interpreter while it
solves: in the model checker's process it stopped the proof thread beside it (the
summary lemmas of a proof ran out of time while a query ran). It imports Bitwuzla
and the standard library only.

Messages are a 4-byte big-endian length and a JSON object. A query is ``{"smt": text,
"ms": time limit or null}``, and for a formula that grows between queries (a session,
whose clauses and what the solver learned are kept) also ``"session": id, "assume":
[names of Boolean constants], "new": bool`` (``{"session": id, "close": true}`` ends
it); the answer ``{"result": "sat"|"unsat"|"unknown"|"error",
"values": [[name, width, value], ...], "scalar_only": bool, "why": text}``:
the values of the Boolean (width null), bit-vector (width: its bits) and floating-point
constants (width: [exponent bits, significand bits], value: the IEEE-754 bits as an
integer) when sat, ``scalar_only`` false when other constants (arrays, functions,
rounding modes) were declared.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from typing import BinaryIO


MAX_SESSIONS = 4  # formulas kept at once (one per encoding of an analysis, in turn)


def read_message(stream: BinaryIO) -> dict | None:
    """The next message, or ``None`` at the end of the stream."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    body = stream.read(int.from_bytes(head, "big"))
    return json.loads(body)


def write_message(stream: BinaryIO, message: dict) -> None:
    body = json.dumps(message).encode()
    stream.write(len(body).to_bytes(4, "big") + body)
    stream.flush()


def answer(query: dict, sessions: dict[int, object] | None = None) -> dict:
    """The answer to one query: a formula alone, or (``"session"``: an id) what it adds
    to that session's formula, asked under the Boolean constants ``"assume"`` names
    (``"new"``: the session starts afresh; ``"close"``: it ends)."""
    import bitwuzla as bw  # (here: the parent imports this module's framing only)

    sessions = {} if sessions is None else sessions
    sid = query.get("session")
    if sid is not None and query.get("close"):
        sessions.pop(sid, None)
        return {"result": "closed"}
    if sid is None or query.get("new") or sid not in sessions:
        if sid is not None and not query.get("new"):
            return {"result": "error", "why": "no such session"}
        tm = bw.TermManager()
        opts = bw.Options()
        opts.set(bw.Option.PRODUCE_MODELS, True)
        parser = bw.Parser(tm, opts)
        if sid is not None:
            while len(sessions) >= MAX_SESSIONS:  # the oldest goes (its next query: an error)
                sessions.pop(next(iter(sessions)))
            sessions[sid] = parser
    else:
        parser = sessions[sid]
    try:
        parser.parse(query["smt"], True, False)
    except bw.BitwuzlaException as e:
        sessions.pop(sid, None)
        return {"result": "error", "why": str(e)}
    solver = parser.bitwuzla()
    declared = {}
    for term in parser.get_declared_funs():
        name = term.symbol()
        declared[name[1:-1] if name.startswith("|") and name.endswith("|") else name] = term
    assume = []
    for name in query.get("assume", []):
        if name not in declared:
            return {"result": "error", "why": f"no constant {name}"}
        assume.append(declared[name])
    # (the time limit of this query alone: a session's solver answers many)
    end = None if query.get("ms") is None else time.monotonic() + int(query["ms"]) / 1000
    solver.configure_terminator(lambda: end is not None and time.monotonic() > end)
    r = solver.check_sat(*assume)
    if r == bw.Result.UNSAT:
        return {"result": "unsat"}
    if r != bw.Result.SAT:
        return {"result": "unknown", "why": "Bitwuzla gave up"}
    values: list[list] = []
    scalar_only = True
    for name, term in declared.items():
        sort = term.sort()
        if sort.is_bool():
            values.append([name, None, int(bool(solver.get_value(term).value()))])
        elif sort.is_bv():
            values.append([name, sort.bv_size(), int(solver.get_value(term).value(10))])
        elif sort.is_fp():
            bits = solver.get_value(term).value(2, False)
            values.append([name, [sort.fp_exp_size(), sort.fp_sig_size()], int(bits, 2)])
        else:
            scalar_only = False
    return {"result": "sat", "values": values, "scalar_only": scalar_only}


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    sessions: dict[int, object] = {}
    while (query := read_message(inp)) is not None:
        write_message(out, answer(query, sessions))


if __name__ == "__main__":
    # Ctrl-C at the terminal reaches the whole process group: the parent decides (it
    # stops this process when it gives up on a query)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin.buffer, sys.stdout.buffer)
