"""The Bitwuzla process: reads SMT-LIB queries on stdin, answers each on stdout.

A process of its own because Bitwuzla's Python binding holds the interpreter while it
solves: in the model checker's process it stopped the proof thread beside it (the
summary lemmas of a proof ran out of time while a query ran). It imports Bitwuzla
and the standard library only.

Messages are a 4-byte big-endian length and a JSON object. A query is ``{"smt": text,
"ms": time limit or null}``; the answer ``{"result": "sat"|"unsat"|"unknown"|"error",
"values": [[name, width or null, value], ...], "scalar_only": bool, "why": text}``:
the values of the Boolean (width null) and bit-vector constants when sat,
``scalar_only`` false when other constants (arrays, floats, functions) were declared.
"""

from __future__ import annotations

import json
import signal
import sys
from typing import BinaryIO


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


def answer(query: dict) -> dict:
    import bitwuzla as bw  # (here: the parent imports this module's framing only)

    tm = bw.TermManager()
    opts = bw.Options()
    opts.set(bw.Option.PRODUCE_MODELS, True)
    if query.get("ms") is not None:
        opts.set(bw.Option.TIME_LIMIT_PER, int(query["ms"]))
    parser = bw.Parser(tm, opts)
    try:
        parser.parse(query["smt"], True, False)
    except bw.BitwuzlaException as e:
        return {"result": "error", "why": str(e)}
    solver = parser.bitwuzla()
    r = solver.check_sat()
    if r == bw.Result.UNSAT:
        return {"result": "unsat"}
    if r != bw.Result.SAT:
        return {"result": "unknown", "why": "Bitwuzla gave up"}
    values: list[list] = []
    scalar_only = True
    for term in parser.get_declared_funs():
        name = term.symbol()
        if name.startswith("|") and name.endswith("|"):
            name = name[1:-1]
        sort = term.sort()
        if sort.is_bool():
            values.append([name, None, int(bool(solver.get_value(term).value()))])
        elif sort.is_bv():
            values.append([name, sort.bv_size(), int(solver.get_value(term).value(10))])
        else:
            scalar_only = False
    return {"result": "sat", "values": values, "scalar_only": scalar_only}


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    while (query := read_message(inp)) is not None:
        write_message(out, answer(query))


if __name__ == "__main__":
    # Ctrl-C at the terminal reaches the whole process group: the parent decides (it
    # stops this process when it gives up on a query)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin.buffer, sys.stdout.buffer)
