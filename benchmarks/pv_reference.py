"""pv's reference automata: learn each benchmark at pv's bounds with pv's alphabet and
compare languages; lazy learning against the baseline (the paper's Table 2).

    python benchmarks/pv_reference.py [--benchmarks DIR] [--only NAME] [--modes lazy,baseline]

For every reference DFA (expected_automata/_<bench>-<b>-<bwl>.dot) the table gives
whether the languages agree on all words of at most bwl letters (what Theorem 4.1 is
about) and as whole DFAs after sink removal. For each mismatch it prints the shortest
distinguishing word and which side is right: a member is shown by replaying its
witness in the interpreter, a non-member by the solver (unsat at bound b).
"""

from __future__ import annotations

import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.analyses.error_language.alphabet import AlphabetSpec  # noqa: E402
from tracelearn.analyses.error_language.driver import ExplainOptions, explain_program  # noqa: E402
from tracelearn.automata.dfa import DFA  # noqa: E402
from tracelearn.automata.dot import parse_pv_dot  # noqa: E402
from tracelearn.frontend.lower import load_program  # noqa: E402
from tracelearn.semantics.inputs import InputSource  # noqa: E402
from tracelearn.semantics.interpreter import Interpreter, InterpOptions  # noqa: E402

TCAS_LETTERS = ["ALIM", "Inhibit_Biased_Climb", "Own_Above_Threat", "Own_Below_Threat", "fake0", "fake1"]


def alphabet_for(bench: str, root: Path) -> AlphabetSpec:
    f = root / "pv" / "alphabets" / f"{bench}.f"
    if f.is_file():
        names = [ln.strip() for ln in f.read_text().splitlines() if ln.strip()]
        return AlphabetSpec(functions=names)
    if bench == "tcas_auto_instrumented":
        return AlphabetSpec(functions=TCAS_LETTERS)
    return AlphabetSpec()


def rename(d: DFA) -> DFA:
    alpha = tuple("assert" if a == "Learn_Assert" else a for a in d.alphabet)
    trans = {(s, "assert" if a == "Learn_Assert" else a): t for (s, a), t in d.transitions.items()}
    return DFA(alpha, d.num_states, d.initial, d.accepting, trans)


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--only", default="", help="only benchmarks whose name contains this")
    parser.add_argument("--modes", default="lazy,baseline", help="comma-separated: lazy, baseline (first is compared)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per learning run")
    parser.add_argument("--max-per-bench", type=int, default=1000,
                        help="at most this many reference automata per benchmark, spread evenly over its bounds")
    parser.add_argument("--bounds", default="",
                        help="only these reference automata, as b-bwl pairs: 1-10,2-8")
    parser.add_argument("--semantics", choices=["c", "cbmc"], default="c",
                        help="cbmc: pv's CBMC setup (runs go on past runtime errors; --unwind counting)")
    args = parser.parse_args()
    modes = args.modes.split(",")
    wanted = {x.strip() for x in args.bounds.split(",") if x.strip()}
    refs = defaultdict(list)
    total: dict[str, int] = defaultdict(int)  # reference automata per benchmark, before any selection
    for p in sorted((root / "pv" / "expected_automata").glob("_*.dot")):
        m = re.match(r"_(.+)-(\d+)-(\d+)\.dot$", p.name)
        if m:
            total[m.group(1)] += 1
        if m and args.only in m.group(1) and (not wanted or f"{m.group(2)}-{m.group(3)}" in wanted):
            refs[m.group(1)].append((int(m.group(2)), int(m.group(3)), p))
    rows, mism, lazyrows, costrows = [], [], [], []
    for bench, items in sorted(refs.items()):
        items.sort()
        program = load_program(str(root / "pv" / f"{bench}.c"))
        spec = alphabet_for(bench, root)
        agree_bwl = agree_dfa = done = timeouts = 0
        qstats = {m: defaultdict(float) for m in modes}
        if len(items) > args.max_per_bench:
            step = len(items) / args.max_per_bench
            items = [items[int(i * step)] for i in range(args.max_per_bench)]
        for b, bwl, path in items:
            ref = rename(parse_pv_dot(path.read_text()))
            results, times = {}, {}
            for mode in modes:
                t0 = time.perf_counter()
                try:
                    r = explain_program(program, ExplainOptions(spec, b, bwl, learner="lstar", lazy=(mode == "lazy"),
                                                                timeout_s=args.timeout, max_witnesses=0,
                                                                cbmc_semantics=args.semantics == "cbmc"))
                except Exception as e:  # a timeout or limit: counted, not hidden
                    print(f"{bench} b={b} bwl={bwl} {mode}: {type(e).__name__}: {e}", file=sys.stderr)
                    results[mode] = None
                    continue
                dt = time.perf_counter() - t0
                results[mode] = r
                times[mode] = dt
                m = r.query_stats
                costrows.append([bench, b, bwl, mode, r.automaton.num_states, m.membership_asked,
                                 f"{m.by_precheck / max(m.membership_asked, 1):.0%}", m.by_cache,
                                 f"{m.by_precheck / max(m.membership_asked - m.by_cache, 1):.1%}", m.by_guess,
                                 m.guesses_fixed, r.teacher_stats.solver_calls, f"{r.teacher_stats.solver_time_s:.1f}",
                                 f"{r.teacher_stats.encode_time_s:.1f}", r.teacher_stats.conjectures, f"{dt:.1f}"])
                print("cost: " + " | ".join(map(str, costrows[-1])), file=sys.stderr, flush=True)
            if all(results.get(mode) is not None for mode in modes):
                # Lazy and baseline are compared on the runs both finished only.
                for mode in modes:
                    q, rm = qstats[mode], results[mode]
                    q["time"] += times[mode]
                    q["solver_calls"] += rm.teacher_stats.solver_calls
                    q["membership"] += rm.query_stats.membership_asked
                    q["precheck"] += rm.query_stats.by_precheck
                    q["guess"] += rm.query_stats.by_guess
                    q["fixed"] += rm.query_stats.guesses_fixed
                    q["runs"] += 1
                if len(modes) > 1:
                    first, other = results[modes[0]].automaton, results[modes[1]].automaton
                    qstats[modes[0]]["same_words"] += other.agree_upto(first, bwl)
                    qstats[modes[0]]["same_automaton"] += other.equivalent(first)
            for mode in modes:
                qstats[mode]["failed"] += results.get(mode) is None
            r = results.get(modes[0])
            if r is None:
                timeouts += 1
                continue
            done += 1
            ours = r.automaton
            ok_bwl = ours.agree_upto(ref, bwl)  # bwl counts the assert letter (Fig. 9)
            ok_dfa = ours.minimize().equivalent(ref.minimize())
            agree_bwl += ok_bwl
            agree_dfa += ok_dfa
            if not ok_dfa:
                mism.append(judge(bench, b, bwl, ours, ref, r, program, args.semantics == "cbmc"))
            print(f"{bench} b={b} bwl={bwl}: words<=bwl {'=' if ok_bwl else '!='}, dfa {'=' if ok_dfa else '!='}",
                  file=sys.stderr, flush=True)
        rows.append([bench, f"{len(items)} of {total[bench]}", done, timeouts, agree_bwl, agree_dfa])
        if len(modes) > 1:
            lz, bl = qstats["lazy"], qstats["baseline"]
            if lz["runs"] and bl["runs"]:
                saved = 1 - lz["solver_calls"] / bl["solver_calls"] if bl["solver_calls"] else 0
                tchange = 1 - lz["time"] / bl["time"] if bl["time"] else 0
                p = 1 - lz["fixed"] / lz["guess"] if lz["guess"] else 1.0
                lazyrows.append([bench, int(lz["runs"]), int(bl["failed"]), int(lz["failed"]), f"{p:.1%}", f"{tchange:+.1%}", f"{saved:.1%}",
                                 int(bl["solver_calls"]), int(lz["solver_calls"]), f"{bl['time']:.1f}",
                                 f"{lz['time']:.1f}", f"{int(lz['same_words'])}/{int(lz['runs'])}",
                                 f"{int(lz['same_automaton'])}/{int(lz['runs'])}",
                                 f"{lz['precheck'] / max(lz['membership'], 1):.1%}"])
    print(table(rows, ["benchmark", "reference automata", "learned", "timeout/error", "same words <= bwl",
                       "same DFA"]))
    if costrows:
        print("\nCost per benchmark, bounds and mode")
        print(table(costrows, ["benchmark", "b", "bwl", "mode", "states", "membership", "pre-check", "cache",
                               "pre-check of uncached", "guessed", "wrong guesses", "solver calls", "solver s", "encoding s", "conjectures", "s"]))
    if lazyrows:
        print("\nLazy learning against the baseline (paper Table 2)")
        print("(totals over the runs both modes finished; timeouts of each mode counted apart)")
        print(table(lazyrows, ["benchmark", "runs", "baseline timeouts", "lazy timeouts", "p (correct guesses)", "runtime decrease", "solver calls saved",
                               "baseline calls", "lazy calls", "baseline s", "lazy s", "same words <= bwl",
                               "same DFA",
                               "pre-check share"]))
    if mism:
        print("\nMismatches (shortest distinguishing word, who is right and how we know)")
        print(table(mism, ["benchmark", "b", "bwl", "word", "in tracelearn", "in pv", "right", "evidence"]))
    return 0


def judge(bench, b, bwl, ours: DFA, ref: DFA, r, program, cbmc: bool) -> list:
    w = ours.minimize().equivalence_witness(ref.minimize())
    if w is None:
        return [bench, b, bwl, "-", "", "", "", ""]
    in_ours, in_ref = ours.accepts(w), ref.accepts(w)
    if len(w) > bwl or not w or w[-1] != "assert":
        return [bench, b, bwl, " ".join(w), in_ours, in_ref, "both (beyond the bound)",
                f"{len(w)} letters > bwl = {bwl}" if len(w) > bwl else "not of the form events.assert"]
    from tracelearn.analyses.error_language.cfg_oracle import CFGOracle
    from tracelearn.analyses.error_language.teacher import ErrorTeacher

    inst = r.inst
    t = ErrorTeacher(inst, b, bwl, CFGOracle(inst.program, inst.targets), 600, cbmc_semantics=cbmc)
    member = t.member(tuple(w))
    if member:
        wit = t.witness(tuple(w))
        run = Interpreter(inst.program, InterpOptions(max_steps=200_000)).run(InputSource(list(wit.inputs)))
        got = tuple(e for e, _ in run.events) + ("assert",)
        evidence = f"replay: {run.status}, word {'matches' if got == tuple(w) else 'differs'}"
        if cbmc and not (run.status == "violation" and got == tuple(w)):
            evidence += " (a path through a failed runtime check: not a real run)"
    else:
        evidence = "solver: no run within b (unsat)" if t.precheck(tuple(w)) is None else "CFG: no path"
    right = "tracelearn" if member == in_ours else "pv"
    return [bench, b, bwl, " ".join(w), in_ours, in_ref, right, evidence]


if __name__ == "__main__":
    sys.exit(main())
