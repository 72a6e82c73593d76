"""learn-filter (Sigma*) on stream filters we wrote: Google AutoEscape's modifiers
(benchmarks/filters/autoescape.c, after the loops and guards of ctemplate's
src/template_modifiers.cc) and the test filters (tests/c/streams, those that look ahead
with tl_peek(k) among them).

Table 1 (the paper's Table 1 shape), once per equivalence oracle (--oracles): per
filter, whether the transducer was proved equivalent (complete), int bits (the
filter's own scalar state: its named locals and the globals it writes), states,
transitions, lookback, conjecture refinements, abstraction refinements and predicates
|Phi| (the "abstraction" oracle, Sigma*'s Alg. 3), boundaries the oracle explored,
membership queries (runs), solver calls (the table's and the oracle's questions and
the path checks of exploring big steps), time (the learning loop alone, and the whole
call with the C front end). Tables 2-5 use the first oracle's models.
Table 2 (differential): the learned transducer against the filter run in the
interpreter and compiled by gcc -O2 -fwrapv, on N inputs per filter (lengths 0..16,
half the elements drawn from the guards' constants and their neighbours, so that
sequences like "&nbsp;" or "\\r\\n" occur).
Table 4 (properties): which filters are idempotent, which pairs commute, whether
a difference decoder inverts its encoder; every "no" with its shortest witness,
replayed in the interpreter.
Table 5 (output inclusion): sequences each escaper must never write, by its
documentation (`filters never-writes`); every "no" with its witness replayed.
Table 3 (query counts): membership queries of tracelearn against AALpy's L* learning
the same filter as a Mealy machine over printable ASCII (95 letters), the way a
concrete-alphabet learner (sflearn) does. AALpy's system under learning is the
proved-equivalent transducer (the same answers as the filter; a run of the C filter
per query would take hours).

    python benchmarks/sigma_filters.py [--inputs 10000] [--only f,g] [--timeout 300]
        [--tables 1,2,3,4,5] [--concrete html_escape,cleanse_css]
        [--oracles boundaries,abstraction]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import table  # noqa: E402

from tracelearn.analyses.streams.replay import FilterReplay  # noqa: E402
from tracelearn.analyses.streams.teacher import constants_of  # noqa: E402
from tracelearn.api.streams import learn_filter_file  # noqa: E402
from tracelearn.errors import TracelearnError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
AUTOESCAPE = ROOT / "benchmarks" / "filters" / "autoescape.c"
TESTS = ROOT / "tests" / "c" / "streams"
CODECS = TESTS / "codecs.c"
# (file, function, depth bound or None, element)
FILTERS = [
    (AUTOESCAPE, "html_escape", None, "char"), (AUTOESCAPE, "pre_escape", None, "char"),
    (AUTOESCAPE, "snippet_escape", None, "char"), (AUTOESCAPE, "snippet_escape_2010", None, "char"),
    (AUTOESCAPE, "cleanse_attribute", None, "char"), (AUTOESCAPE, "cleanse_css", None, "char"),
    (AUTOESCAPE, "css_url_escape", None, "char"), (AUTOESCAPE, "javascript_escape", None, "char"),
    (AUTOESCAPE, "json_escape", None, "char"), (AUTOESCAPE, "url_query_escape", None, "char"),
    (AUTOESCAPE, "xml_escape", None, "char"), (AUTOESCAPE, "prefix_line", None, "char"),
    (AUTOESCAPE, "javascript_number", None, "char"), (AUTOESCAPE, "validate_url_and_html_escape", None, "char"),
    (TESTS / "fig2.c", "fig2", 16, "char"), (TESTS / "delay.c", "delay", None, "char"),
    (TESTS / "diff.c", "diff_encode", None, "char"), (CODECS, "base64_encode", None, "char"),
    (CODECS, "utf8_encode", None, "int32"),
    (TESTS / "lookahead.c", "ab_to_x", None, "char"), (TESTS / "lookahead.c", "two_on", None, "char"),
    (TESTS / "lookahead.c", "pair_sums", None, "char"),
]
PRINTABLE = list(range(32, 127))


def state_bits(path: Path, fn: str) -> int:
    """The filter's own scalar state in bits (Sigma*'s "int bits"): the named locals
    (not the front end's temporaries) of the filter and of the functions it calls that
    read the stream (a filter whose loop is a helper's, as SnippetEscape's two versions),
    and the globals some procedure stores to."""
    from tracelearn.frontend.lower import load_program
    from tracelearn.ir.expr import AddrOf, walk
    from tracelearn.ir.program import Assign, Call, Mem

    prog = load_program(str(path), entry=fn)

    def callees(name: str) -> set[str]:
        return {st.callee for b in prog.procedures[name].blocks for st in b.stmts
                if isinstance(st, Call) and st.callee in prog.procedures}

    def reads(name: str) -> bool:
        return any(isinstance(st, Call) and st.callee in ("tl_in", "tl_peek", "tl_eof")
                   for b in prog.procedures[name].blocks for st in b.stmts)

    loops, todo = {fn}, [fn]
    while todo:
        for c in callees(todo.pop()) - loops:
            if reads(c):
                loops.add(c)
                todo.append(c)
    bits = sum(v.type.bits for name in loops for v in prog.procedures[name].locals
               if "~" not in v.name and v.type.is_scalar())
    written = {x.name for p in prog.procedures.values() for b in p.blocks for st in b.stmts
               if isinstance(st, Assign) and isinstance(st.lhs, Mem) for x in walk(st.lhs.addr)
               if isinstance(x, AddrOf)}
    return bits + sum(g.var.type.bits for name, g in prog.globals.items()
                      if name in written and not g.readonly and g.var.type.is_scalar())


def learn_all(only: set[str] | None, timeout: float, oracle: str = "boundaries") -> list[tuple]:
    out = []
    for path, fn, depth, element in FILTERS:
        if only and fn not in only:
            continue
        t0 = time.perf_counter()
        try:
            r = learn_filter_file(str(path), function=fn, max_depth=depth, element=element, check=0,
                                  timeout=timeout, oracle=oracle)
        except TracelearnError as e:  # outside the class: the row says why
            out.append((path, fn, str(e), time.perf_counter() - t0))
            print(f"  {fn}: {e}", file=sys.stderr)
            continue
        out.append((path, fn, r, time.perf_counter() - t0))
        print(f"  learned {fn} ({oracle}): complete={r.doc['complete']} ({time.perf_counter() - t0:.1f} s)",
              file=sys.stderr)
    return out


def learned(results) -> list[tuple]:
    """The results that are models (not refusals)."""
    return [x for x in results if not isinstance(x[2], str)]


def table1(results) -> str:
    rows = []
    for _, fn, r, wall in results:
        if isinstance(r, str):
            rows.append([fn, "outside the class: " + r[r.find("depends"):][:60], "-", "-", "-", "-", "-", "-", "-",
                         "-", "-", "-", "-", f"{wall:.1f}"])
            continue
        d = r.doc
        t = d["transducer"] or {"states": "-", "transitions": [], "lookback": "-"}
        s = d["stats"]
        rows.append([fn, "yes" if d["complete"] else
                     f"up to {d['exact_up_to']:,} elements" if d.get("exact_up_to") is not None else
                     f"no: {d['reason'][:48]}", state_bits(Path(d["file"]), fn), t["states"], len(t["transitions"]),
                     t["lookback"], s["conjecture_refinements"], s["abstraction_refinements"], s["predicates"],
                     s["boundaries_explored"],
                     f"{s['membership_queries']} ({s['runs']})", s["solver_calls"], f"{s['time']:.2f}", f"{wall:.1f}"])
    # learn s: the learning loop (table, conjectures, equivalence), what Sigma*'s times
    # measure; total s: the call, C parsed and lowered and the document built included
    return table(rows, ["filter", "complete", "int bits", "states", "transitions", "lookback", "conj. ref.",
                        "abs. ref.", "|Phi|", "boundaries", "MQ (runs)", "solver calls", "learn s", "total s"])


def table2(results, n: int, seed: int) -> str:
    rows = []
    for path, fn, r, _ in learned(results):
        t = r.result.transducer
        if t is None:
            continue
        rng = random.Random(seed)
        pool = sorted({c + d for c in constants_of(t) for d in (-1, 0, 1)
                       if -(1 << (t.bits - 1)) <= c + d < (1 << (t.bits - 1))})
        lo, hi = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
        inputs = [[]] + [[rng.choice(pool) if pool and rng.random() < 0.5 else rng.randint(lo, hi)
                          for _ in range(rng.randint(1, 16))] for _ in range(n - 1)]
        drawn = sum(len(v) for v in inputs)
        replay = FilterReplay(str(path), fn, t.bits)
        try:
            want = [t.run(v) for v in inputs]
            t0 = time.perf_counter()
            interp_bad = sum(1 for v, w in zip(inputs, want) if replay.interpret(v) != w)
            ti = time.perf_counter() - t0
            gcc = replay.gcc(inputs)
            gcc_bad = "-" if gcc is None else sum(1 for g, w in zip(gcc, want) if g != w)
        finally:
            replay.close()
        from_consts = sum(1 for v in inputs for x in v if x in pool)
        rows.append([fn, len(inputs), drawn, f"{100 * from_consts / max(drawn, 1):.0f}%", interp_bad, gcc_bad,
                     f"{ti:.1f}"])
    return table(rows, ["filter", "inputs", "elements", "from guard constants", "interpreter disagree",
                        "gcc disagree", "interpreter s"])


def table3(results, names: set[str]) -> str:
    from aalpy.base import SUL
    from aalpy.learning_algs import run_Lstar
    from aalpy.oracles import StatePrefixEqOracle

    class TransducerSUL(SUL):
        def __init__(self, t):
            super().__init__()
            self.t = t
            self.word: list[int] = []

        def pre(self):
            self.word = []

        def post(self):
            pass

        def step(self, letter):
            self.word.append(letter)
            steps = self.t.trace(self.word)
            return tuple(steps[-2]) if steps is not None else None

    rows = []
    for _, fn, r, _ in learned(results):
        t = r.result.transducer
        if fn not in names or t is None or not r.doc["complete"]:
            continue
        sul = TransducerSUL(t)
        oracle = StatePrefixEqOracle(PRINTABLE, sul, walks_per_state=20, walk_len=8)
        _, info = run_Lstar(PRINTABLE, sul, oracle, "mealy", return_data=True, print_level=0)
        ours = r.doc["stats"]["membership_queries"]
        paper = learn_filter_file(r.doc["file"], function=fn, check=0, columns="paper").doc["stats"]
        rows.append([fn, ours, paper["membership_queries"], info["queries_learning"], info["queries_eq_oracle"],
                     f"{info['queries_learning'] / max(ours, 1):.0f}x",
                     f"{info['queries_learning'] / max(paper['membership_queries'], 1):.0f}x"])
    return table(rows, ["filter", "tracelearn MQ", "MQ, Sigma*'s columns", "AALpy L* MQ (95 letters)",
                        "AALpy equivalence tests", "ratio", "ratio, Sigma*'s columns"])


PAIRS = [("commute", AUTOESCAPE, "html_escape", "pre_escape"), ("commute", AUTOESCAPE, "cleanse_css", "html_escape"),
         ("commute", AUTOESCAPE, "cleanse_css", "cleanse_attribute"), ("commute", AUTOESCAPE, "json_escape", "html_escape"),
         ("commute", TESTS / "diff.c", "diff_encode", "sum_pairs"), ("inverse", TESTS / "diff.c", "diff_encode", "diff_decode"),
         ("inverse", TESTS / "diff.c", "diff_encode", "sum_pairs"), ("equivalent", AUTOESCAPE, "html_escape", "pre_escape")]


def table4(results, timeout: float) -> str:
    """Idempotence of each learned filter, then the pairs above."""
    from tracelearn.api.filter_properties import filter_property
    from tracelearn.errors import TracelearnError
    rows = []
    todo = [("idempotent", path, fn, None) for path, fn, r, _ in learned(results) if r.doc["complete"]] + PAIRS
    for prop, path, f, g in todo:
        t0 = time.perf_counter()
        try:
            d = filter_property(prop, str(path), function=f, with_function=g, timeout=timeout)
        except TracelearnError as e:  # a model not learned in time: the row says so, the table goes on
            rows.append([prop, f + (f", {g}" if g else ""), "unknown", str(e)[:70], "-", "-", "-",
                         f"{time.perf_counter() - t0:.1f}"])
            continue
        w = d["witness"]
        by = ", ".join("composed" if c["by"].startswith("composing") else "C pipeline" for c in d["compositions"])
        rows.append([prop, f + (f", {g}" if g else ""), {True: "yes", False: "no", None: "unknown"}[d["holds"]],
                     "-" if w is None else f"{w['input']} ({w['replay']})", by or "-",
                     sum(m["stats"]["membership_queries"] for m in d["models"]), d["stats"]["solver_calls"],
                     f"{time.perf_counter() - t0:.1f}"])
    return table(rows, ["property", "filters", "holds", "shortest witness (replay)", "compositions", "MQ",
                        "solver calls (comparison)", "time s"])


# (filter, sequences its output must not hold): what each escaper is for
NEVER = [("html_escape", ["<", ">", '"', "'"]), ("pre_escape", ["<", ">"]), ("xml_escape", ["<", ">", "'"]),
         ("javascript_escape", ["<", '"', "'", "\n", "\u2028"]), ("json_escape", ["\n", '"', "</"]),
         ("url_query_escape", [" ", "&", "#"]), ("css_url_escape", ["(", ")", "\n"]),
         ("cleanse_css", [";", "(", ":"]), ("cleanse_attribute", ["=", " ", '"'])]


def table5(timeout: float) -> str:
    from tracelearn.api.filter_properties import filter_never_writes
    rows = []
    for fn, texts in NEVER:
        for text in texts:
            seq = [b - 256 if b >= 128 else b for b in text.encode("utf-8")]
            t0 = time.perf_counter()
            try:
                d = filter_never_writes(str(AUTOESCAPE), function=fn, sequence=seq, timeout=timeout)
            except TracelearnError as e:
                rows.append([fn, repr(text), "unknown", str(e)[:60], "-", "-", f"{time.perf_counter() - t0:.1f}"])
                continue
            w = d["witness"]
            rows.append([fn, repr(text), {True: "yes", False: "no", None: "unknown"}[d["holds"]],
                         "-" if w is None else f"{w['input']} ({w['replay']})", d["stats"]["search_nodes"],
                         d["stats"]["solver_calls"], f"{time.perf_counter() - t0:.1f}"])
    return table(rows, ["filter", "never writes", "holds", "shortest witness found (replay)", "search nodes",
                        "solver calls", "time s (learning included)"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--inputs", type=int, default=10000, help="inputs per filter in Table 2 (default 10000)")
    p.add_argument("--only", help="comma-separated filter functions")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--tables", default="1,2,3,4,5")
    p.add_argument("--concrete", default="html_escape,cleanse_css", help="filters of Table 3")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--oracles", default="boundaries,abstraction",
                   help="equivalence oracles of Table 1 (the first one's models serve the other tables)")
    a = p.parse_args(argv)
    tables = set(a.tables.split(","))
    oracles = a.oracles.split(",")
    if not oracles or set(oracles) - {"boundaries", "abstraction"}:
        p.error("--oracles: a comma-separated list of boundaries and abstraction")
    only = set(a.only.split(",")) if a.only else None
    results = learn_all(only, a.timeout, oracles[0]) if tables - {"5"} else []
    if "1" in tables:
        for i, oracle in enumerate(oracles):
            rows = results if i == 0 else learn_all(only, a.timeout, oracle)
            print(f"Table 1: learn-filter, oracle {oracle}\n" + table1(rows) + "\n")
    if "2" in tables:
        print(f"Table 2: differential, {a.inputs} inputs per filter\n" + table2(results, a.inputs, a.seed) + "\n")
    if "3" in tables:
        print("Table 3: membership queries against a concrete-alphabet learner\n"
              + table3(results, set(a.concrete.split(","))) + "\n")
    if "4" in tables:
        print("Table 4: properties (learned transducers composed, or C pipelines learned; witnesses replayed)\n"
              + table4(results, a.timeout) + "\n")
    if "5" in tables:
        print("Table 5: output inclusion (filters never-writes; witnesses replayed in the interpreter)\n"
              + table5(a.timeout) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
